package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/gamesolver/gamesolver/service"
)

func TestParseConfig(t *testing.T) {
	env := map[string]string{
		"GAMESOLVER_ADDR":       "127.0.0.1:9000",
		"GAMESOLVER_MAX_BODY":   "128KiB",
		"REDIS_URL":             "redis://user:hunter2@redis:6379/0",
		"GAMESOLVER_MAX_BUDGET": "1m",
	}
	cfg, err := parseConfig("serve", []string{"--addr", ":7000", "--solver-slots", "3"}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != ":7000" {
		t.Errorf("flag should win over env: addr = %q", cfg.Addr)
	}
	if cfg.MaxBodyBytes != 128<<10 || cfg.MaxBudget != time.Minute || cfg.SolverSlots != 3 {
		t.Errorf("cfg = %+v", cfg)
	}
	eff := cfg.effective()
	if strings.Contains(eff["redis-url"], "hunter2") || !strings.Contains(eff["redis-url"], "redis:6379") {
		t.Errorf("effective redis-url = %q, want the password hidden", eff["redis-url"])
	}
	if eff["max-body"] != "128KiB" {
		t.Errorf("effective max-body = %q", eff["max-body"])
	}
}

// TestRedactIf: a secret URL's password is hidden however it is written,
// also unencoded where net/url reads it as the path or the query (an
// audit's redis://:1234/SecretTail99@host was logged whole), and the
// query, which may name one.
func TestRedactIf(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		{"redis://user:hunter2@redis:6379/0", "redis://user:xxxxx@redis:6379/0"},
		{"redis://:1234/SecretTail99@127.0.0.1:6379/0", "redis://xxxxx@127.0.0.1:6379/0"},
		{"redis://default:9876?SecretTail99@127.0.0.1:6379", "redis://xxxxx@127.0.0.1:6379"},
		{"redis://:p@ss/SecretTail99@127.0.0.1:6379", "redis://xxxxx@127.0.0.1:6379"},
		{"redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"},
		{"redis:secret@host?u=a://b", "redis://xxxxx@host?xxxxx"},
		// A password in the query (a security review: logged whole).
		{"redis://127.0.0.1:6379/0?password=secretN", "redis://127.0.0.1:6379/0?xxxxx"},
		{"rediss://u:p@redis:6380/0?dial_timeout=1s&password=secretN", "rediss://u:xxxxx@redis:6380/0?xxxxx"},
		{"hunter2", "(hidden)"},
	} {
		if got := redactIf(true, c.raw); got != c.want {
			t.Errorf("%s: %s, want %s", c.raw, got, c.want)
		}
	}
}

func TestParseConfigDefaults(t *testing.T) {
	cfg, err := parseConfig("serve", nil, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != ":8080" || cfg.MaxBodyBytes != 64<<10 || cfg.RedisURL != "" || cfg.RateLimit != "100-S" {
		t.Errorf("defaults = %+v", cfg)
	}
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--max-body", "lots"}, nil, "expected a size"},
		{[]string{"--solver-slots", "0"}, nil, "solver-slots must be at least 1"},
		{[]string{"--default-budget", "1m", "--max-budget", "10s"}, nil, "default-budget <= max-budget"},
		{[]string{"--log-format", "xml"}, nil, `log-format "xml"`},
		{nil, map[string]string{"GAMESOLVER_QUEUE_WAIT": "soon"}, "GAMESOLVER_QUEUE_WAIT"},
		{[]string{"extra"}, nil, `unexpected argument "extra"`},
		{[]string{"--express-limit", "-1s"}, nil, "express-limit must not be negative"},
		{[]string{"--max-job-duration", "0s"}, nil, "max-job-duration must be positive"},
		{[]string{"--rate-limit", "bogus"}, nil, `rate limit "bogus": expected <requests>-<S|M|H|D>`},
		{nil, map[string]string{"GAMESOLVER_RATE_LIMIT": "5-fortnight"}, `rate limit "5-fortnight"`},
		{[]string{"--job-rate-limit", "often"}, nil, `job-rate-limit: rate limit "often"`},
		{nil, map[string]string{"GAMESOLVER_JOB_RATE_LIMIT": "1-Y"}, `job-rate-limit: rate limit "1-Y"`},
		{[]string{"--cors-origins", "https://a.example,/^https://(x/"}, nil, "cors-origins: origin pattern /^https://(x/"},
		{[]string{"--metrics-addr", ":8080"}, nil, "metrics-addr :8080 is the port of addr :8080"},
		{[]string{"--addr", "127.0.0.1:9000", "--metrics-addr", "0.0.0.0:9000"}, nil, "metrics-addr 0.0.0.0:9000 is the port of addr 127.0.0.1:9000"},
		{[]string{"--pprof"}, nil, "pprof serves the profiles on metrics-addr only"},
		{nil, map[string]string{"GAMESOLVER_PPROF": "true"}, "give metrics-addr too"},
		// Values that started a server which then misbehaved (an
		// operator's audit).
		{nil, map[string]string{"GAMESOLVER_CACHE_TTL": "-1h"}, "cache-ttl must be positive"},
		{[]string{"--cache-ttl", "0s"}, nil, "cache-ttl must be positive"},
		{[]string{"--redis-timeout", "0s"}, nil, "redis-timeout must be positive"},
		{[]string{"--queue-wait", "-1s"}, nil, "queue-wait must not be negative"},
		{[]string{"--shutdown-grace", "-5s"}, nil, "shutdown-grace must not be negative"},
		{[]string{"--cache-bytes", "99999999999GiB"}, nil, "99999999999GiB is too large"},
		{[]string{"--job-window", "0"}, nil, "job-window must be at least 1"},
		{[]string{"--max-active-jobs", "-1"}, nil, "max-active-jobs must be at least 0"},
		{[]string{"--max-client-jobs", "-3"}, nil, "max-client-jobs must be at least 0"},
		{[]string{"--max-client-requests", "-1"}, nil, "max-client-requests must be at least 0"},
		{[]string{"--max-connections", "-2"}, nil, "max-connections must be at least -1"},
		{nil, map[string]string{"GAMESOLVER_MAX_CLIENT_CONNECTIONS": "-1"}, "max-client-connections must be at least 0"},
		{[]string{"--job-workers", "-7"}, nil, "job-workers must be at least -1"},
		{nil, map[string]string{"GAMESOLVER_WORKER_NAME": " "}, "worker-name is blank"},
		{[]string{"--log-level", "dpanic"}, nil, `log-level "dpanic"`},
	}
	for _, level := range []string{"INFO", "warning", " Debug "} { // as zap reads them, and the versions before took them
		if _, err := parseConfig("serve", []string{"--log-level", level}, func(string) string { return "" }); err != nil {
			t.Errorf("log-level %q: %v", level, err)
		}
	}
	for _, ok := range []struct {
		args []string
		want time.Duration
	}{
		{nil, 10 * time.Second},
		{[]string{"--max-job-duration", "5s"}, 2500 * time.Millisecond},
		{[]string{"--max-job-duration", "5s", "--express-limit", "0"}, 0},
		{[]string{"--express-limit", "2s"}, 2 * time.Second},
	} {
		cfg, err := parseConfig("serve", ok.args, func(string) string { return "" })
		if err != nil || cfg.expressLimit() != ok.want {
			t.Errorf("parseConfig(%v): express limit %v, %v; want %v", ok.args, cfg.expressLimit(), err, ok.want)
		}
	}
	for _, tt := range tests {
		_, err := parseConfig("serve", tt.args, func(k string) string { return tt.env[k] })
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parseConfig(%v, %v) error = %v, want %q", tt.args, tt.env, err, tt.want)
		}
	}
}

func TestSameListener(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{":8080", ":8080", true},
		{":8080", "127.0.0.1:8080", true},
		{"[::]:8080", "10.0.0.1:8080", true},
		{"127.0.0.1:8080", "127.0.0.1:8080", true},
		{"127.0.0.1:8080", "127.0.0.2:8080", false},
		{":8080", ":9090", false},
		{":0", ":0", false}, // each gets a port of its own
		{"localhost", "localhost", true},
	} {
		if got := sameListener(tt.a, tt.b); got != tt.want {
			t.Errorf("sameListener(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	// Only serve listens on --addr: a worker's metrics may take its port.
	if _, err := parseConfig("worker", []string{"--metrics-addr", ":8080"}, func(string) string { return "" }); err != nil {
		t.Errorf("worker --metrics-addr :8080: %v", err)
	}
}

func TestCORSOrigins(t *testing.T) {
	c := config{CORSOrigins: " https://a.example , ,https://b.example"}
	if got := c.corsOrigins(); len(got) != 2 || got[1] != "https://b.example" {
		t.Errorf("corsOrigins = %q", got)
	}
}

func TestTrustedProxies(t *testing.T) {
	for in, want := range map[string]string{"*": "[]", "": "[]", "none": "[] empty", "10.0.0.0/8, 192.168.1.5": "[10.0.0.0/8 192.168.1.5]",
		"private": "[127.0.0.0/8 10.0.0.0/8 172.16.0.0/12 192.168.0.0/16 169.254.0.0/16 ::1/128 fc00::/7 fe80::/10]"} {
		c := config{TrustedProxies: in}
		got, err := c.trustedProxies()
		s := fmt.Sprint(got)
		if got != nil && len(got) == 0 {
			s += " empty"
		}
		if err != nil || s != want {
			t.Errorf("%q: %s, %v; want %s", in, s, err, want)
		}
	}
	if c, err := parseConfig("serve", nil, func(string) string { return "" }); err != nil || c.TrustedProxies != "none" {
		t.Errorf("default --trusted-proxies %q (%v), want none: a peer on a private network (a pod, a LAN client, a NAT's) must not forge X-Forwarded-For", c.TrustedProxies, err)
	}
	if _, err := parseConfig("serve", []string{"--trusted-proxies", "10.0.0.0/33"}, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "trusted-proxies") {
		t.Errorf("a bad CIDR accepted: %v", err)
	}
}

func TestRunCommands(t *testing.T) {
	var out, errb strings.Builder
	if code := run([]string{"version"}, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "gamesolver ") {
		t.Errorf("version: %d %q", code, out.String())
	}
	if code := run([]string{"frobnicate"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "unknown command") {
		t.Errorf("unknown command: %d %q", code, errb.String())
	}
}

// TestCatalogueNamesEveryJobType: /v1/games names every job type a
// server runs in some game's endpoints (a review found polyomino.book
// missing).
func TestCatalogueNamesEveryJobType(t *testing.T) {
	var endpoints []string
	for _, g := range []service.GameInfo{service.PolyominoInfo(), service.TilingInfo(), service.TeekoInfo()} {
		endpoints = append(endpoints, g.Endpoints...)
	}
	all := strings.Join(endpoints, "\n")
	for _, k := range jobKinds(defaultConfig(), nil, 1) {
		if !strings.Contains(all, "POST /v1/jobs (type "+k.Name()) {
			t.Errorf("no game of /v1/games names job type %s; endpoints:\n%s", k.Name(), all)
		}
	}
}

// TestDeployConfigMap: every setting the Kubernetes ConfigMap and the
// compose file give is one of the server's, with a value it accepts, and
// the whole parses (a typo would be ignored by the pods, or stop them).
// TestDockerfileGoVersion: the image builds with the Go release go.mod
// names (golang images set GOTOOLCHAIN=local: a builder's older cached
// golang:1.26 stopped at go mod download).
// TestUnknownEnv: a GAMESOLVER_ variable that names no setting is
// reported (it was ignored silently), the tests' own aside.
func TestUnknownEnv(t *testing.T) {
	got := unknownEnv([]string{"GAMESOLVER_SOLVER_SLOT=2", "GAMESOLVER_SOLVER_SLOTS=2", "REDIS_URL=x", "GAMESOLVER_TEST_DATA_DIR=/d",
		"GAMESOLVER_REQUIRE_REDIS=1", "PATH=/bin", "GAMESOLVER_CACHETTL=1h"})
	if strings.Join(got, ",") != "GAMESOLVER_CACHETTL,GAMESOLVER_SOLVER_SLOT" {
		t.Errorf("unknownEnv = %v", got)
	}
}

func TestDockerfileGoVersion(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	docker, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(mod)
	from := regexp.MustCompile(`(?m)^FROM .*golang:([0-9.]+)-`).FindSubmatch(docker)
	if goLine == nil || from == nil || string(goLine[1]) != string(from[1]) {
		t.Errorf("go.mod's go %q, the Dockerfile's golang:%q: give the image the same release", goLine, from)
	}
}

func TestDeployConfigMap(t *testing.T) {
	for _, file := range []string{"../../deploy/k8s/configmap.yaml", "../../deploy/compose.yaml"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		c := defaultConfig()
		known := map[string]setting{}
		for _, s := range c.settings() {
			known[s.env] = s
		}
		env := map[string]string{}
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "- "))
			name, value, ok := strings.Cut(line, ":")
			if !ok || !strings.HasPrefix(name, "GAMESOLVER_") {
				if n, v, ok := strings.Cut(line, "="); ok && strings.HasPrefix(n, "GAMESOLVER_") {
					name, value = n, v
				} else {
					continue
				}
			}
			value = strings.Trim(strings.TrimSpace(value), `"'`)
			if _, ok := known[name]; !ok {
				t.Errorf("%s: %s is not a setting of the server", file, name)
				continue
			}
			env[name] = value
		}
		if _, err := parseConfig("serve", nil, func(k string) string { return env[k] }); err != nil {
			t.Errorf("%s: %v", file, err)
		}
		t.Logf("%s: %d settings", file, len(env))
	}
}

// TestHelpExitsZero: -h on any command prints its usage and exits 0 (the
// commands with flag sets of their own exited 1 with "help requested");
// an unknown flag still fails.
func TestHelpExitsZero(t *testing.T) {
	for _, args := range [][]string{
		{"healthcheck", "-h"}, {"teeko", "build", "-h"}, {"book", "stats", "-h"}, {"book", "build", "-h"},
		{"serve", "-h"}, {"worker", "-h"}, {"solve", "-h"}, {"-h"},
	} {
		var out, errb strings.Builder
		if code := run(args, &out, &errb); code != 0 || strings.Contains(errb.String(), "help requested") {
			t.Errorf("%v: exit %d, %s", args, code, errb.String())
		}
	}
	var out, errb strings.Builder
	if code := run([]string{"healthcheck", "--bogus"}, &out, &errb); code == 0 {
		t.Errorf("an unknown flag: exit 0")
	}
}

// TestDeployBase: the kustomize base lists files that exist, deploys no
// known password (an audit rendered the example Secret's placeholder as
// Redis's --requirepass), and keeps Redis to gamesolver's pods.
func TestDeployBase(t *testing.T) {
	raw, err := os.ReadFile("../../deploy/k8s/kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		Resources []string `json:"resources"`
	}
	if err := yaml.Unmarshal(raw, &k); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, r := range k.Resources {
		data, err := os.ReadFile(filepath.Join("../../deploy/k8s", r))
		if err != nil {
			t.Fatalf("resource %s: %v", r, err)
		}
		if strings.Contains(string(data), "CHANGE-ME") || strings.Contains(string(data), "kind: Secret") {
			t.Errorf("%s: a Secret in the base (its password would be known to every reader)", r)
		}
		for _, m := range regexp.MustCompile(`(?m)^kind: (\S+)`).FindAllSubmatch(data, -1) {
			kinds[string(m[1])] = true
		}
	}
	for _, want := range []string{"NetworkPolicy", "StatefulSet", "Deployment", "ConfigMap"} {
		if !kinds[want] {
			t.Errorf("no %s in the base (%v)", want, kinds)
		}
	}
}
