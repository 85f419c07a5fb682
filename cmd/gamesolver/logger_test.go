package main

import (
	"context"
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
