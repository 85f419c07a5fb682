package cache

import (
	"context"
	"fmt"
	"testing"
	"time"
)

func TestMemoryLRUBoundedInBytes(t *testing.T) {
	ctx := context.Background()
	value := make([]byte, 100)
	perEntry := int64(len("k00")+len(value)) + entryOverhead
	m := NewMemory(3*perEntry, 0)
	for i := 0; i < 3; i++ {
		_ = m.Set(ctx, fmt.Sprintf("k%02d", i), value, 0)
	}
	if _, ok, _ := m.Get(ctx, "k00"); !ok { // k00 becomes most recent
		t.Fatal("k00 missing before eviction")
	}
	_ = m.Set(ctx, "k03", value, 0) // evicts the least recent: k01
	tests := []struct {
		key  string
		want bool
	}{{"k00", true}, {"k01", false}, {"k02", true}, {"k03", true}}
	for _, tt := range tests {
		if _, ok, _ := m.Get(ctx, tt.key); ok != tt.want {
			t.Errorf("Get(%s) present = %v, want %v", tt.key, ok, tt.want)
		}
	}
	if n, b := m.Len(); n != 3 || b != 3*perEntry {
		t.Errorf("Len = %d entries, %d bytes; want 3, %d", n, b, 3*perEntry)
	}
}

func TestMemoryRejectsValueLargerThanCache(t *testing.T) {
	m := NewMemory(200, 0)
	_ = m.Set(context.Background(), "big", make([]byte, 500), 0)
	if n, _ := m.Len(); n != 0 {
		t.Errorf("stored a value larger than the cache")
	}
}

func TestMemoryTTL(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1000, 0)
	m := NewMemory(1<<20, time.Minute)
	m.now = func() time.Time { return now }
	_ = m.Set(ctx, "default", []byte("a"), 0)
	_ = m.Set(ctx, "short", []byte("b"), time.Second)
	now = now.Add(2 * time.Second)
	if _, ok, _ := m.Get(ctx, "short"); ok {
		t.Error("short-lived entry survived its TTL")
	}
	if v, ok, _ := m.Get(ctx, "default"); !ok || string(v) != "a" {
		t.Error("entry with the default TTL expired too early")
	}
	now = now.Add(time.Minute)
	if _, ok, _ := m.Get(ctx, "default"); ok {
		t.Error("entry survived the default TTL")
	}
}

func TestMemoryOverwriteKeepsSizeExact(t *testing.T) {
	ctx := context.Background()
	m := NewMemory(1<<20, 0)
	_ = m.Set(ctx, "k", make([]byte, 10), 0)
	_ = m.Set(ctx, "k", make([]byte, 20), 0)
	if n, b := m.Len(); n != 1 || b != int64(1+20)+entryOverhead {
		t.Errorf("after overwrite: %d entries, %d bytes", n, b)
	}
}

func TestKey(t *testing.T) {
	if got := Key("teeko", "v1", "advanced/standard", "b...."); got != "gs:teeko:v1:advanced/standard:b...." {
		t.Errorf("Key = %q", got)
	}
}
