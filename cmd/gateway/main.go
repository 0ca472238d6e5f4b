// Command gateway runs the versioned API gateway.
//
//	gateway [serve] [-config config.yaml]   serve until SIGTERM/SIGINT (SIGHUP reloads)
//	gateway check [-config config.yaml]     validate and print the route table
//	gateway token -sub USER [-roles a,b]    mint an HS256 JWT for jwt mode (development aid)
//	gateway version                         print the build
//	gateway help [COMMAND]                  the commands, or one command's flags
//
// Exit codes: 0 success, 1 a configuration or runtime failure, 2 a usage
// error. docs/reference/cli.md is the reference.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // the configuration is not valid, or serving failed
	exitUsage   = 2 // unknown command or flag, missing argument
)

func main() {
	tuneMemory(os.Getenv)
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, os.Getenv))
}

// env is what a command runs with: its output streams and the environment.
type env struct {
	ctx            context.Context
	stdout, stderr io.Writer
	getenv         func(string) string
}

// command is one subcommand: its flags are declared by flags, which returns
// the function that runs it once they are parsed.
type command struct {
	name, args, summary string
	// about is printed under the usage line of `gateway help NAME`.
	about string
	flags func(fs *flag.FlagSet) func(e env, args []string) int
}

func commands() []command {
	return []command{
		{name: "serve", summary: "run the gateway until SIGTERM or SIGINT (the default command)",
			about: "Serves the API and admin listeners. SIGHUP, or a change of the config file, reloads the\n" +
				"configuration; settings that need a restart are named in a warning (docs/operations/reload.md).\n" +
				"SIGTERM or SIGINT drains: the readiness probe fails, requests in flight finish, the call log is flushed.",
			flags: func(fs *flag.FlagSet) func(env, []string) int {
				path := configFlag(fs)
				return func(e env, _ []string) int {
					ctx, stop := signal.NotifyContext(e.ctx, syscall.SIGTERM, syscall.SIGINT)
					defer stop()
					if err := serve(ctx, *path, e.stdout, e.getenv); err != nil {
						printFailure(e.stderr, *path, err)
						return exitFailure
					}
					return exitOK
				}
			}},
		{name: "check", summary: "validate the configuration and print the route table",
			about: "Prints the route table of a valid configuration (exit 0), or every problem of it at once,\n" +
				"one a line as `key.path (line N): problem`, in file order (exit 1). Reads the same\n" +
				"environment variables serve does.",
			flags: func(fs *flag.FlagSet) func(env, []string) int {
				path := configFlag(fs)
				return func(e env, _ []string) int { return check(*path, e.stdout, e.stderr, e.getenv) }
			}},
		{name: "token", args: "-sub USER", summary: "mint an HS256 JWT for jwt mode (a development aid)",
			about: "Prints a bearer token signed with auth.jwt.secret (GATEWAY_JWT_SECRET), with the configured\n" +
				"issuer and audience, that the gateway accepts in jwt mode:\n" +
				"    curl -H \"Authorization: Bearer $(gateway token -sub alice -roles admin)\" ...\n" +
				"Refuses (exit 1) when the configuration has no HS256 secret.",
			flags: tokenFlags},
		{name: "version", summary: "print the version, VCS revision and Go version of this build",
			flags: func(*flag.FlagSet) func(env, []string) int {
				return func(e env, _ []string) int {
					bi, _ := debug.ReadBuildInfo()
					fmt.Fprintln(e.stdout, versionString(bi))
					return exitOK
				}
			}},
		{name: "help", args: "[COMMAND]", summary: "list the commands, or describe one with its flags",
			flags: func(*flag.FlagSet) func(env, []string) int {
				return func(e env, args []string) int {
					if len(args) == 0 {
						usage(e.stdout)
						return exitOK
					}
					c, ok := lookup(args[0])
					if !ok {
						return unknownCommand(e.stderr, args[0])
					}
					fs := newFlagSet(c, e.stdout)
					c.flags(fs)
					fs.Usage()
					return exitOK
				}
			}},
	}
}

func configFlag(fs *flag.FlagSet) *string {
	return fs.String("config", "config.yaml", "the configuration `file`")
}

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	name := "serve"
	switch {
	case len(args) > 0 && isHelpFlag(args[0]):
		usage(stdout)
		return exitOK
	case len(args) > 0 && !strings.HasPrefix(args[0], "-"):
		name, args = args[0], args[1:]
	}
	c, ok := lookup(name)
	if !ok {
		return unknownCommand(stderr, name)
	}
	// The flag package prints the usage on -h as on a bad flag: asked
	// for, it goes to stdout; after a mistake, to stderr with it.
	var parseOut bytes.Buffer
	fs := newFlagSet(c, &parseOut)
	runCmd := c.flags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			_, _ = stdout.Write(parseOut.Bytes())
			return exitOK
		}
		_, _ = stderr.Write(parseOut.Bytes())
		return exitUsage
	}
	fs.SetOutput(stderr)
	if fs.NArg() > 0 && c.name != "help" {
		fmt.Fprintf(stderr, "gateway %s: unexpected argument %q\n", c.name, fs.Arg(0))
		fs.Usage()
		return exitUsage
	}
	return runCmd(env{ctx: ctx, stdout: stdout, stderr: stderr, getenv: getenv}, fs.Args())
}

func isHelpFlag(arg string) bool {
	switch arg {
	case "-h", "-help", "--help":
		return true
	}
	return false
}

func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func unknownCommand(w io.Writer, name string) int {
	fmt.Fprintf(w, "gateway: unknown command %q; run `gateway help` for the list\n", name)
	return exitUsage
}

// newFlagSet is c's flag set, whose usage (on -h and on a bad flag) is the
// command's description and every flag with its default.
func newFlagSet(c command, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("gateway "+c.name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		w := fs.Output()
		line := "gateway " + c.name
		if c.args != "" {
			line += " " + c.args
		}
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			line += " [flags]"
		}
		fmt.Fprintf(w, "usage: %s\n\n%s.\n", line, upperFirst(c.summary))
		if c.about != "" {
			fmt.Fprintf(w, "\n%s\n", c.about)
		}
		if hasFlags {
			fmt.Fprintf(w, "\nflags:\n")
			fs.PrintDefaults()
		}
		fmt.Fprintf(w, "\nexit codes: 0 success, 1 configuration or runtime failure, 2 usage error\n")
	}
	return fs
}

// usage is `gateway help`.
func usage(w io.Writer) {
	fmt.Fprintf(w, "gateway: the versioned API gateway\n\nusage: gateway [command] [flags]\n\ncommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun `gateway help COMMAND` or `gateway COMMAND -h` for a command's flags and their defaults.\n"+
		"exit codes: 0 success, 1 configuration or runtime failure, 2 usage error\n"+
		"reference: docs/reference/cli.md and docs/reference/configuration.md\n")
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
