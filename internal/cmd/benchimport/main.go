// Command benchimport measures "ndrmilter ledger import" against gzip -1 of
// the same log, in the same run (issue 14): it writes a realistic Postfix log
// (package postfixlogtest: 80,000 messages, about 77 MB, by default), then,
// run after run, times "gzip -1 -c LOG > /dev/null" and an import of LOG into
// a fresh bbolt ledger, both as whole processes, and prints both times, their
// ratio and each process's peak RSS (from wait4's rusage; and, sampled from
// /proc, its anonymous and file-mapped parts). The goal is an import in at
// most 3 times gzip's time with at most 64 MB peak RSS.
//
//	go run ./internal/cmd/benchimport [-messages N] [-runs N] [-bin PATH] [-dir DIR]
//
// The import runs without GOGC and GOMEMLIMIT in its environment: with
// the soft memory limit the command sets itself.
//
// It checks the import's --json summary against what the log holds (every
// message that left from example.org imported as new), so that a fast import
// that skipped work does not pass. The figures are only meaningful on an idle
// machine; it is a benchmark, never a test.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ndrmilter/ndrmilter/ledger/postfixlog/postfixlogtest"
)

// Goals of issue 14 for the import.
const (
	goalRatio = 3.0
	goalRSSMB = 64.0
)

func main() {
	messages := flag.Int("messages", 80000, "messages in the generated log")
	runs := flag.Int("runs", 3, "runs (each: gzip -1, then the import)")
	bin := flag.String("bin", "", "ndrmilter binary (default: built from this repository)")
	dir := flag.String("dir", "", "work directory (default: a new temporary directory, removed at the end)")
	rfc3339 := flag.Bool("rfc3339", false, "RFC 3339 time stamps (rsyslog's default on Debian) instead of classic syslog")
	flag.Parse()
	if err := run(*messages, *runs, *bin, *dir, *rfc3339); err != nil {
		fmt.Fprintf(os.Stderr, "benchimport: %v\n", err)
		os.Exit(1)
	}
}

// measured is one process's run.
type measured struct {
	wall  time.Duration
	cpu   time.Duration // user + system
	rssMB float64       // peak resident set size
	// The parts of the largest resident set sampled (every 5 ms, from
	// /proc/PID/status; Linux): anonymous memory (the Go heap), and pages
	// of files mapped (the binary's text, the bbolt ledger's file).
	anonMB, fileMB float64
}

func run(messages, runs int, bin, dir string, rfc3339 bool) error {
	if messages < 1 || runs < 1 {
		return fmt.Errorf("-messages and -runs must be at least 1")
	}
	if _, err := exec.LookPath("gzip"); err != nil {
		return fmt.Errorf("gzip not found: %v", err)
	}
	if dir == "" {
		d, err := os.MkdirTemp("", "benchimport-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if bin == "" {
		bin = filepath.Join(dir, "ndrmilter")
		build := exec.Command("go", "build", "-o", bin, "./cmd/ndrmilter")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building ndrmilter (run from the repository, or give -bin): %v", err)
		}
	}

	logPath := filepath.Join(dir, "mail.log")
	f, err := os.Create(logPath)
	if err != nil {
		return err
	}
	sum, err := postfixlogtest.Write(f, postfixlogtest.Options{Messages: messages, Seed: 14, RFC3339: rfc3339})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing the log: %v", err)
	}
	fmt.Printf("log: %s, %.1f MB, %d lines, %d messages, %d leaving from example.org (%d sender/recipient pairs)\n",
		logPath, float64(sum.Bytes)/1e6, sum.Lines, sum.Messages, sum.Leaving, sum.Pairs)
	// Both commands read the log from the page cache.
	if err := warm(logPath); err != nil {
		return err
	}

	var ratios []float64
	var worstRSS float64
	fmt.Printf("%-4s %10s %10s %8s %14s %22s %12s %12s\n", "run", "gzip -1", "import", "ratio", "import RSS", "(anon + file, sampled)", "gzip RSS", "import CPU")
	for i := 1; i <= runs; i++ {
		gz, err := measure(exec.Command("gzip", "-1", "-c", logPath))
		if err != nil {
			return fmt.Errorf("gzip: %v", err)
		}
		data := filepath.Join(dir, fmt.Sprintf("ledger-%d", i))
		os.RemoveAll(data)
		cmd := exec.Command(bin, "ledger", "import", "--data", data, "--domain", "example.org", "--json", logPath)
		cmd.Env = importEnv()
		var out bytes.Buffer
		cmd.Stdout = &out
		imp, err := measure(cmd)
		if err != nil {
			return fmt.Errorf("import: %v\n%s", err, out.String())
		}
		if err := check(out.Bytes(), sum); err != nil {
			return fmt.Errorf("run %d: %v", i, err)
		}
		os.RemoveAll(data)
		ratio := imp.wall.Seconds() / gz.wall.Seconds()
		ratios = append(ratios, ratio)
		worstRSS = max(worstRSS, imp.rssMB)
		fmt.Printf("%-4d %9.3fs %9.3fs %7.2fx %11.1f MB %9.1f + %5.1f MB %9.1f MB %11.3fs\n", i, gz.wall.Seconds(), imp.wall.Seconds(), ratio, imp.rssMB, imp.anonMB, imp.fileMB, gz.rssMB, imp.cpu.Seconds())
	}
	slices.Sort(ratios)
	median := ratios[len(ratios)/2]
	fmt.Printf("median ratio import/gzip: %.2fx (goal <= %.0fx: %s); peak import RSS %.1f MB (goal <= %.0f MB: %s)\n",
		median, goalRatio, verdict(median <= goalRatio), worstRSS, goalRSSMB, verdict(worstRSS <= goalRSSMB))
	return nil
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

// measure runs cmd (its standard output to /dev/null unless set) and
// returns its wall time and its rusage.
func measure(cmd *exec.Cmd) (measured, error) {
	if cmd.Stdout == nil {
		devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			return measured{}, err
		}
		defer devnull.Close()
		cmd.Stdout = devnull
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return measured{}, err
	}
	done := make(chan struct{})
	sampled := make(chan [2]float64, 1)
	go func() { sampled <- sampleRSS(cmd.Process.Pid, done) }()
	err := cmd.Wait()
	wall := time.Since(start)
	close(done)
	parts := <-sampled
	if err != nil {
		return measured{}, fmt.Errorf("%v: %s", err, stderr.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return measured{}, fmt.Errorf("no rusage for %s", cmd.Path)
	}
	return measured{
		wall:   wall,
		cpu:    cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(),
		rssMB:  float64(ru.Maxrss) / 1024, // Linux: kilobytes
		anonMB: parts[0], fileMB: parts[1],
	}, nil
}

// sampleRSS reads the resident set of process pid every 5 ms until done
// closes, and returns the anonymous and file parts (MB) of the largest.
func sampleRSS(pid int, done <-chan struct{}) [2]float64 {
	var best [2]float64
	path := fmt.Sprintf("/proc/%d/status", pid)
	for {
		select {
		case <-done:
			return best
		case <-time.After(5 * time.Millisecond):
		}
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var anon, file float64
		for _, l := range strings.Split(string(b), "\n") {
			var kb float64
			if _, err := fmt.Sscanf(l, "RssAnon: %f kB", &kb); err == nil {
				anon = kb / 1024
			} else if _, err := fmt.Sscanf(l, "RssFile: %f kB", &kb); err == nil {
				file = kb / 1024
			}
		}
		if anon+file > best[0]+best[1] {
			best = [2]float64{anon, file}
		}
	}
}

// importEnv is the environment of the import: this one without GOGC and
// GOMEMLIMIT, so that the import runs with the settings of its own
// (postfixlog.ImportMemoryLimit), as an admin runs it.
func importEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOGC=") && !strings.HasPrefix(kv, "GOMEMLIMIT=") {
			env = append(env, kv)
		}
	}
	return env
}

// check compares the import's --json summary with what the log holds.
func check(out []byte, sum postfixlogtest.Summary) error {
	var s struct {
		New       int `json:"new"`
		Errors    int `json:"errors"`
		Lines     int `json:"lines"`
		Malformed int `json:"malformed_lines"`
	}
	if err := json.Unmarshal(out, &s); err != nil {
		return fmt.Errorf("reading the import's --json summary: %v: %q", err, out)
	}
	if s.New != sum.Leaving || s.Errors != 0 || s.Lines != sum.Lines || s.Malformed != 0 {
		return fmt.Errorf("import summary %s: want %d new, %d lines, no error, no malformed line", bytes.TrimSpace(out), sum.Leaving, sum.Lines)
	}
	return nil
}

func warm(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(io.Discard, f)
	return err
}
