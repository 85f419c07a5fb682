package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/gamesolver/gamesolver/engine/teeko"
)

const teekoUsage = "usage: gamesolver teeko build [--data-dir DIR] [--rules standard|advanced|both] [--force] [--workers N] [--quiet]"

// teekoCommand runs `gamesolver teeko build`.
func teekoCommand(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		fmt.Fprintln(stdout, teekoUsage)
		return nil
	}
	if len(args) == 0 || args[0] != "build" {
		return errors.New(teekoUsage)
	}
	fs := flag.NewFlagSet("teeko build", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data-dir", envOr("GAMESOLVER_DATA_DIR", "./data"), "directory for the tables")
	rules := fs.String("rules", "both", "standard, advanced or both")
	force := fs.Bool("force", false, "rebuild even when a valid table exists")
	workers := fs.Int("workers", 0, "goroutines (0: every core)")
	quiet := fs.Bool("quiet", false, "no progress bar")
	if err := parseNoArgs(fs, args[1:]); err != nil {
		return err
	}
	var sets []teeko.Rules
	switch *rules {
	case "both":
		sets = []teeko.Rules{teeko.Standard, teeko.Advanced}
	default:
		r, err := teeko.ParseRules(*rules)
		if err != nil {
			return fmt.Errorf("--rules %q: expected standard, advanced or both", *rules)
		}
		sets = []teeko.Rules{r}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	for _, r := range sets {
		path := teeko.TablePath(*dataDir, r)
		if !*force {
			start := time.Now()
			if _, err := teeko.LoadFile(path, r); err == nil {
				fmt.Fprintf(stdout, "%s: %s is valid (loaded in %v); --force rebuilds it\n", r, path, time.Since(start).Round(time.Millisecond))
				continue
			}
		}
		var bar *progressbar.ProgressBar
		phase := ""
		start := time.Now()
		_, err := teeko.BuildFile(ctx, *dataDir, r, *workers, func(p teeko.Progress) {
			if *quiet {
				return
			}
			if p.Phase != phase || bar == nil {
				if bar != nil {
					_ = bar.Finish()
					fmt.Fprintln(stderr)
				}
				phase = p.Phase
				bar = progressbar.NewOptions64(p.Total, progressbar.OptionSetWriter(stderr),
					progressbar.OptionSetDescription(fmt.Sprintf("%s %-12s", r, p.Phase)),
					progressbar.OptionShowCount(), progressbar.OptionThrottle(200*time.Millisecond),
					progressbar.OptionSetWidth(30))
			}
			_ = bar.Set64(p.Done)
		})
		if bar != nil {
			_ = bar.Finish()
			fmt.Fprintln(stderr)
		}
		if err != nil {
			return fmt.Errorf("build %s: %w", r, err)
		}
		fi, _ := os.Stat(path)
		fmt.Fprintf(stdout, "%s: built %s (%d bytes) in %v\n", r, path, fi.Size(), time.Since(start).Round(time.Millisecond))
	}
	return nil
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
