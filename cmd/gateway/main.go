// Command gateway runs the versioned API gateway.
//
//	gateway [serve] [-config config.yaml]   serve until SIGTERM/SIGINT (SIGHUP reloads)
//	gateway check [-config config.yaml]     validate and print the route table
//	gateway version                         print the build
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

func main() {
	tuneMemory(os.Getenv)
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	cmd := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	fs := flag.NewFlagSet("gateway "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "config.yaml", "path of the configuration file")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	switch cmd {
	case "serve":
		ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
		defer stop()
		if err := serve(ctx, *configPath, stdout, getenv); err != nil {
			fmt.Fprintf(stderr, "gateway: %v\n", err)
			return 1
		}
		return 0
	case "check":
		return check(*configPath, stdout, stderr, getenv)
	case "version":
		fmt.Fprintln(stdout, versionString())
		return 0
	}
	fmt.Fprintf(stderr, "gateway: unknown command %q (serve, check, version)\n", cmd)
	return 2
}

// buildInfo reads the module version and VCS revision stamped by go build.
func buildInfo() (version, revision, goVersion string) {
	version, revision = "devel", "unknown"
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return version, revision, "unknown"
	}
	if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			revision = s.Value
		}
	}
	return version, revision, bi.GoVersion
}

func versionString() string {
	v, r, g := buildInfo()
	return fmt.Sprintf("gateway %s (revision %s, %s)", v, r, g)
}
