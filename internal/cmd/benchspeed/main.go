// Command benchspeed is "make bench-speed": the speed figures of issue 14,
// each against a reference measured in the same run.
//
//	go run ./internal/cmd/benchspeed [-runs N] [-starts N] [-explains N] [-corpus DIR]... [-bin PATH] [-ldflags FLAGS]
//
// (a) Start-up: the whole process "ndrmilter code 5.1.1" against a Go
// hello-world (./hello) built with the same flags, run in turn (-starts
// times each per run, the order alternating). Goal: at most 3 times the
// hello-world. The programs are built as "make build" builds ndrmilter
// (CGO_ENABLED=0, -trimpath); -ldflags "-s -w" builds all of them as
// scripts/build-deb does, for the packaged binary. With -bin, the
// hello-world is not built with the flags of that binary: give the same
// -ldflags.
//
// (b) Explain: the whole process "ndrmilter explain --json DIR..." over
// directories of bounce files (by default the repository's own,
// internal/testdata/bounces/eml and dsn/testdata; -corpus names others)
// against ./mimewalk, which only reads the same files and walks their MIME
// parts with the standard library. The goal is 10 times faster than
// Sisimai-Go over the shared corpus (583 ms for 622 files); that corpus is
// not in the repository, so this prints the ratio to the MIME walk.
//
// (c) Parse and classify in process, one core: the benchmarks
// BenchmarkParseAndExplain* of package rules with GOMAXPROCS=1: messages
// per second, MB/s, allocations per message. Goal: 40,000 msgs/s and at
// most 10 allocations per message.
//
// Wall times are the mean and the median of the processes of a run; CPU is
// user plus system time of the process (from wait4), which moves less than
// wall time when the machine is shared, and faults its page faults (from
// wait4 too), which hardly move. It runs from the repository root. The
// figures are only meaningful on an idle machine; it is a benchmark, never a
// test.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Goals of issue 14.
const (
	goalStartRatio = 3.0     // ndrmilter code / hello-world
	goalMsgsPerSec = 40000.0 // in process, one core
	goalAllocs     = 10.0    // per message
	// Sisimai-Go's explain of the shared corpus, the baseline.
	sisimaiMillis = 583.0
	sisimaiFiles  = 622
)

// defaultCorpus are the repository's own bounce files.
var defaultCorpus = []string{"internal/testdata/bounces/eml", "dsn/testdata"}

func main() {
	runs := flag.Int("runs", 3, "runs of every measurement")
	starts := flag.Int("starts", 100, "processes of each program per run, for start-up")
	explains := flag.Int("explains", 20, "processes of each program per run, for explain")
	bin := flag.String("bin", "", "ndrmilter binary (default: built from this repository)")
	ldflags := flag.String("ldflags", "", "linker flags for every program built (\"-s -w\": as the Debian package is built)")
	skipParse := flag.Bool("skip-parse", false, "leave out (c), the in-process benchmark")
	var corpus []string
	flag.Func("corpus", "a directory of bounce files for (b) (repeatable; default: "+strings.Join(defaultCorpus, " and ")+")", func(s string) error {
		corpus = append(corpus, s)
		return nil
	})
	flag.Parse()
	if len(corpus) == 0 {
		corpus = defaultCorpus
	}
	if err := run(*runs, *starts, *explains, *bin, *ldflags, corpus, *skipParse); err != nil {
		fmt.Fprintf(os.Stderr, "benchspeed: %v\n", err)
		os.Exit(1)
	}
}

// sample is one process's run.
type sample struct {
	wall, cpu time.Duration
	faults    int64 // page faults (minor and major): moves little with the load
}

// stats are the samples of one program in one run.
type stats []sample

func (s stats) mean(f func(sample) time.Duration) time.Duration {
	var sum time.Duration
	for _, x := range s {
		sum += f(x)
	}
	return sum / time.Duration(len(s))
}

func (s stats) median(f func(sample) time.Duration) time.Duration {
	v := make([]time.Duration, len(s))
	for i, x := range s {
		v[i] = f(x)
	}
	slices.Sort(v)
	return v[len(v)/2]
}

// meanFaults is the mean number of page faults of s.
func (s stats) meanFaults() float64 {
	var sum int64
	for _, x := range s {
		sum += x.faults
	}
	return float64(sum) / float64(len(s))
}

func wallOf(s sample) time.Duration { return s.wall }
func cpuOf(s sample) time.Duration  { return s.cpu }

func run(runs, starts, explains int, bin, ldflags string, corpus []string, skipParse bool) error {
	if runs < 1 || starts < 1 || explains < 1 {
		return errors.New("-runs, -starts and -explains must be at least 1")
	}
	if _, err := os.Stat("go.mod"); err != nil {
		return errors.New("run from the repository root (make bench-speed)")
	}
	dir, err := os.MkdirTemp("", "benchspeed-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	hello, walk := filepath.Join(dir, "hello"), filepath.Join(dir, "mimewalk")
	builds := [][2]string{{hello, "./internal/cmd/benchspeed/hello"}, {walk, "./internal/cmd/benchspeed/mimewalk"}}
	if bin == "" {
		bin = filepath.Join(dir, "ndrmilter")
		builds = append(builds, [2]string{bin, "./cmd/ndrmilter"})
	}
	for _, b := range builds {
		// The flags of "make build" (the version stamps aside), the same for
		// every program.
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags", ldflags, "-o", b[0], b[1])
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go build %s: %v", b[1], err)
		}
	}
	var files int
	for _, d := range corpus {
		entries, err := os.ReadDir(d)
		if err != nil {
			return fmt.Errorf("corpus: %v", err)
		}
		for _, e := range entries {
			if e.Type().IsRegular() {
				files++
			}
		}
	}

	code := []string{bin, "code", "5.1.1"}
	explain := append([]string{bin, "explain", "--json"}, corpus...)
	walkCmd := append([]string{walk}, corpus...)
	// Each program once, to check that it does the work measured (and to
	// have its files in the page cache).
	if out, err := output(code); err != nil || !bytes.Contains(out, []byte("userunknown")) {
		return fmt.Errorf("%s: %v, output %q: expected the reading of 5.1.1", strings.Join(code, " "), err, out)
	}
	out, err := output(explain)
	if n := bytes.Count(out, []byte("\n")); err != nil || n < files {
		return fmt.Errorf("ndrmilter explain --json: %v, %d lines for %d files", err, n, files)
	}
	if out, err := output(walkCmd); err != nil || !bytes.HasPrefix(out, []byte(strconv.Itoa(files)+" messages")) {
		return fmt.Errorf("mimewalk: %v, output %q, expected %d messages", err, out, files)
	}
	if _, err := output([]string{hello}); err != nil {
		return fmt.Errorf("hello: %v", err)
	}

	load := func() string {
		data, err := os.ReadFile("/proc/loadavg")
		if err != nil {
			return "?"
		}
		return strings.Join(strings.Fields(string(data))[:3], " ")
	}
	fmt.Printf("benchspeed: %d runs; built with CGO_ENABLED=0 -trimpath -ldflags %q; load average before: %s (figures under load are not the product's)\n\n", runs, ldflags, load())

	fmt.Printf("(a) start-up: %q against a Go hello-world, %d processes each per run, in turn\n", "ndrmilter code 5.1.1", starts)
	for r := 1; r <= runs; r++ {
		a, b, err := interleave(code, []string{hello}, starts)
		if err != nil {
			return err
		}
		report(r, "ndrmilter code", "hello-world", a, b, goalStartRatio)
	}

	fmt.Printf("\n(b) explain: %q over %d files of %s against mimewalk (read and MIME-walk the same files), %d processes each per run\n",
		"ndrmilter explain --json", files, strings.Join(corpus, " "), explains)
	for r := 1; r <= runs; r++ {
		a, b, err := interleave(explain, walkCmd, explains)
		if err != nil {
			return err
		}
		report(r, "ndrmilter explain", "mimewalk", a, b, 0)
		perFile := float64(a.mean(wallOf)) / float64(time.Millisecond) / float64(files)
		fmt.Printf("        per file %.3f ms; Sisimai-Go's %.0f ms for %d files (issue 14, the shared corpus) is %.2f ms per file: %.1fx (goal 10x; compare on the shared corpus with -corpus)\n",
			perFile, sisimaiMillis, sisimaiFiles, sisimaiMillis/sisimaiFiles, sisimaiMillis/sisimaiFiles/perFile)
	}

	if skipParse {
		return nil
	}
	fmt.Printf("\n(c) parse and classify in process, GOMAXPROCS=1 (go test -bench ParseAndExplain ./rules), %d runs\n", runs)
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", "^BenchmarkParseAndExplain", "-benchmem", "-count", strconv.Itoa(runs), "./rules")
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	cmd.Stderr = os.Stderr
	benchOut, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go test -bench: %v\n%s", err, benchOut)
	}
	sc := bufio.NewScanner(bytes.NewReader(benchOut))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "Benchmark") {
			continue
		}
		f := strings.Fields(line)
		m := map[string]float64{}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err == nil {
				m[f[i+1]] = v
			}
		}
		verdict := "met"
		if m["msgs/s"] < goalMsgsPerSec || m["allocs/op"] > goalAllocs {
			verdict = "not met"
		}
		fmt.Printf("  %-36s %8.0f msgs/s (cpu %8.0f)  %7.1f MB/s  %6.0f allocs/msg  %8.0f B/msg  goal %.0f msgs/s, <= %.0f allocs: %s\n",
			f[0], m["msgs/s"], m["cpu-msgs/s"], m["MB/s"], m["allocs/op"], m["B/op"], goalMsgsPerSec, goalAllocs, verdict)
	}
	fmt.Printf("\nload average after: %s\n", load())
	return nil
}

// report prints one run of a program against its reference.
func report(run int, name, refName string, a, b stats, goal float64) {
	ratio := float64(a.mean(wallOf)) / float64(b.mean(wallOf))
	verdict := ""
	if goal > 0 {
		verdict = fmt.Sprintf(" (goal <= %.0fx: %s)", goal, map[bool]string{true: "met", false: "not met"}[ratio <= goal])
	}
	fmt.Printf("  run %d: %s mean %s median %s cpu %s faults %.0f | %s mean %s median %s cpu %s faults %.0f | ratio %.2fx (median %.2fx, cpu %.2fx, faults %.2fx)%s\n",
		run, name, ms(a.mean(wallOf)), ms(a.median(wallOf)), ms(a.mean(cpuOf)), a.meanFaults(),
		refName, ms(b.mean(wallOf)), ms(b.median(wallOf)), ms(b.mean(cpuOf)), b.meanFaults(),
		ratio, float64(a.median(wallOf))/float64(b.median(wallOf)), float64(a.mean(cpuOf))/float64(b.mean(cpuOf)),
		a.meanFaults()/b.meanFaults(), verdict)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

// interleave runs a and b n times each, in turn, the order alternating.
func interleave(a, b []string, n int) (sa, sb stats, err error) {
	for i := 0; i < n; i++ {
		first, second := a, b
		if i%2 == 1 {
			first, second = b, a
		}
		x, err := timed(first)
		if err != nil {
			return nil, nil, err
		}
		y, err := timed(second)
		if err != nil {
			return nil, nil, err
		}
		if i%2 == 1 {
			x, y = y, x
		}
		sa, sb = append(sa, x), append(sb, y)
	}
	return sa, sb, nil
}

// timed runs argv with its output to /dev/null and returns its wall time
// (fork to wait) and CPU time.
func timed(argv []string) (sample, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return sample{}, fmt.Errorf("%s: %v", strings.Join(argv, " "), err)
	}
	wall := time.Since(start)
	var cpu time.Duration
	var faults int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		faults = ru.Minflt + ru.Majflt
	}
	return sample{wall, cpu, faults}, nil
}

// output runs argv and returns its standard output.
func output(argv []string) ([]byte, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	return cmd.Output()
}
