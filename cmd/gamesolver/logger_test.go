package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// TestRedisLogger: go-redis's messages become structured warnings (they
// were plain text lines in the JSON log).
func TestRedisLogger(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	l := redisLogger{zap.New(core).Named("redis")}
	l.Printf(context.Background(), "redis: connection pool: failed to dial after %d attempts: %v\n", 5, "i/o timeout")
	got := logs.All()
	if len(got) != 1 || got[0].Level != zapcore.WarnLevel || got[0].LoggerName != "redis" ||
		got[0].Message != "redis: connection pool: failed to dial after 5 attempts: i/o timeout" {
		t.Fatalf("%+v", got)
	}
}

// TestLoggerKeepsEveryLine: the logger does not sample (zap's production
// default dropped all but 1 in 100 lines of a message past 100 a second).
func TestLoggerKeepsEveryLine(t *testing.T) {
	for _, format := range []string{"json", "console"} {
		cfg := defaultConfig()
		cfg.LogFormat, cfg.LogLevel = format, "info"
		zc, err := loggerConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "log")
		zc.OutputPaths = []string{path}
		log, err := zc.Build()
		if err != nil {
			t.Fatal(err)
		}
		for range 500 {
			log.Info("request")
		}
		_ = log.Sync()
		b, err := os.ReadFile(path)
		if n := strings.Count(string(b), "\n"); err != nil || n != 500 {
			t.Errorf("%s: %d lines of 500 (%v)", format, n, err)
		}
	}
}
