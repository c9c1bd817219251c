package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/ndrmilter/ndrmilter/frontend"
	"github.com/ndrmilter/ndrmilter/rules"
)

// version and commit are stamped at build time (the Makefile's build and deb
// targets): go build -ldflags "-X main.version=V -X main.commit=C". A binary
// built without them falls back to what the Go toolchain recorded.
var (
	version = ""
	commit  = ""
)

// versionLine is what "ndrmilter version" prints:
// "ndrmilter VERSION (commit C, go GOVERSION, rules R)".
func versionLine() string {
	b := buildInfo()
	return fmt.Sprintf("ndrmilter %s (commit %s, go %s, rules %s)", b.Version, b.Commit, b.GoVersion, b.Rules)
}

// buildInfo returns the facts of this build that "ndrmilter version" and
// the metric ndrmilter_build_info show.
func buildInfo() frontend.BuildInfo {
	v, c := version, commit
	if v == "" || c == "" {
		bv, bc := buildInfoVersion()
		if v == "" {
			v = bv
		}
		if c == "" {
			c = bc
		}
	}
	return frontend.BuildInfo{Version: v, Commit: c, GoVersion: runtime.Version(), Rules: rules.BuiltinDigest()}
}

// buildInfoVersion reads the version and commit the Go toolchain stamps in
// a binary built from a module or a git checkout (runtime/debug build info:
// the module version, vcs.revision, vcs.modified). Either is "unknown" when
// the toolchain recorded nothing (go build -buildvcs=false).
func buildInfoVersion() (v, c string) {
	v, c = "devel", "unknown"
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v, c
	}
	if mv := bi.Main.Version; mv != "" && mv != "(devel)" {
		v = strings.TrimPrefix(mv, "v")
	}
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			c = s.Value
			if len(c) > 12 {
				c = c[:12]
			}
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && c != "unknown" {
		c += "-dirty"
	}
	return v, c
}

// runVersion is "ndrmilter version".
func runVersion(args []string, env cliEnv) int {
	if len(args) > 0 {
		fmt.Fprintf(env.stderr, "ndrmilter version: unexpected argument %q\n", args[0])
		return exitUsage
	}
	fmt.Fprintln(env.stdout, versionLine())
	return exitOK
}
