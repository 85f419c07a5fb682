package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"time"
)

// healthcheck asks a running server whether it is alive.
func healthcheck(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("healthcheck", flag.ContinueOnError)
	url := fs.String("url", "http://127.0.0.1:8080/healthz", "URL that must answer 200")
	timeout := fs.Duration("timeout", 3*time.Second, "how long to wait for the answer")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	client := &http.Client{Timeout: *timeout}
	resp, err := client.Get(*url)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: %s answered %s", *url, resp.Status)
	}
	fmt.Fprintln(stdout, "ok")
	return nil
}
