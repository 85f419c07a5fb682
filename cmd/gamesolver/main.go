// Command gamesolver serves the gamesolver HTTP API and runs its offline
// work (table builds, solves) from the command line. This package only
// wires the layers together: configuration, construction, start, stop.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = ""

func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

const usage = `gamesolver: exact analysis of Teeko, polyomino placement games and tiling puzzles

Usage:
  gamesolver serve [flags]      start the HTTP server (gamesolver serve -h lists the flags)
  gamesolver teeko build [--data-dir DIR] [--rules R] [--force] [--workers N] [--quiet]
                                build the Teeko tablebases with a progress bar
  gamesolver book build|verify|worker|stats|merge|lower-bound [flags]
                                prove the Pentominoes opening book (certificate, long-L, openings),
                                re-verify it with the independent checker, and more
                                (gamesolver book lists them)
  gamesolver healthcheck [--url U]
                                exit 0 when U answers 200 (default: /healthz on the loopback at
                                GAMESOLVER_METRICS_ADDR's port, else GAMESOLVER_ADDR's, else 8080);
                                for container health checks, where no curl exists
  gamesolver worker [flags]     run a job worker against REDIS_URL (same flags as serve)
  gamesolver solve [flags] OPERATION [BODY]
                                answer one API request in process and print its JSON
                                (teeko, teeko/annotate, polyomino, polyomino/moves, polyomino/annotate, tilings, games;
                                gamesolver solve -h has examples)
  gamesolver tile [flags] [BODY]
                                the same as solve tilings
  gamesolver version            print the version
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd, rest := args[0], args[1:]
	var err error
	switch cmd {
	case "serve":
		err = serve(rest, os.Getenv)
	case "worker":
		err = worker(rest, os.Getenv)
	case "solve", "tile":
		err = solveCommand(cmd, rest, os.Getenv, os.Stdin, stdout, stderr)
	case "teeko":
		err = teekoCommand(rest, stdout, stderr)
	case "book":
		err = bookCommand(rest, stdout, stderr)
	case "healthcheck":
		err = healthcheck(rest, os.Getenv, stdout)
	case "version", "--version", "-v":
		if len(rest) > 0 {
			err = fmt.Errorf("version: unexpected argument %q", rest[0])
			break
		}
		fmt.Fprintln(stdout, "gamesolver", versionString())
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "gamesolver: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	return exitCode(err, stderr)
}

// exitCode is the process's exit status after a command's err, which it
// reports on stderr.
func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp), errors.Is(err, errHelpShown):
		return 0 // -h: the flags' usage is printed
	case errors.Is(err, context.Canceled):
		// SIGINT or SIGTERM stopped the command (its work kept where it
		// keeps any): the shell's code for an interrupted command.
		fmt.Fprintln(stderr, "gamesolver: interrupted")
		return 130
	}
	fmt.Fprintln(stderr, "gamesolver:", err)
	return 1
}

// parseNoArgs parses the flags of a command that takes no argument: a word
// left after them (a file meant for --file, the flags after it) is refused
// instead of being ignored with everything after it.
func parseNoArgs(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q (this command takes flags only, and flags come before anything else)", fs.Name(), fs.Arg(0))
	}
	return nil
}
