package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// healthcheck asks a running server whether it is alive: by default the
// process the environment describes (a container's health check runs
// with the container's environment).
func healthcheck(args []string, getenv func(string) string, stdout io.Writer) error {
	fs := flag.NewFlagSet("healthcheck", flag.ContinueOnError)
	url := fs.String("url", healthURL(getenv), "URL that must answer 200 (default: /healthz on GAMESOLVER_METRICS_ADDR when set, else on GAMESOLVER_ADDR, on the loopback)")
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

// healthURL is the /healthz of the listener the environment gives a
// process: GAMESOLVER_METRICS_ADDR, which serve and worker both answer
// /healthz on (a worker's only listener), else GAMESOLVER_ADDR, else the
// default :8080; a wildcard or missing host is reached on the loopback.
func healthURL(getenv func(string) string) string {
	addr := getenv("GAMESOLVER_METRICS_ADDR")
	if addr == "" {
		addr = getenv("GAMESOLVER_ADDR")
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		host, port = "", "8080"
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if ip != nil && ip.To4() == nil {
			host = "::1"
		}
	}
	return "http://" + net.JoinHostPort(host, port) + "/healthz"
}
