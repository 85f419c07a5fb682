package service_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/service"
	"github.com/gamesolver/gamesolver/service/cache"
	"github.com/gamesolver/gamesolver/service/jobs"
)

// cachedJobRequest is a position of 524 moves, each a unit of its job
// (BenchmarkCombineUnfinished's).
const cachedJobRequest = `{"game":"pentominoes","width":8,"height":8,"pieces":"YNZTV","pool":true,"end_rule":"normal","board":["........","..VVV...","..V.....","..V.....","........","........","........","....#..."],"to_move":"second"`

// recorder is a cache that keeps a copy of everything stored in it.
type recorder struct {
	cache.Cache
	mu  sync.Mutex
	set map[string][]byte
}

func (r *recorder) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	r.mu.Lock()
	r.set[key] = append([]byte(nil), value...)
	r.mu.Unlock()
	return r.Cache.Set(ctx, key, value, ttl)
}

// BenchmarkCachedJob times a whole polyomino.analyze job of 524 units
// whose units' answers are all cached (each unit's search run once
// before, outside the timing): an in-process manager with a journal (the
// memory store in a directory), one worker slot, from the submission to
// done; what is left is the job's machinery and Combine after each unit.
// A fresh store and a fresh cache holding the units' answers each op.
func BenchmarkCachedJob(b *testing.B) {
	for _, all := range []bool{true, false} {
		name, req := "first-win", json.RawMessage(cachedJobRequest+"}")
		if all {
			name, req = "all-moves", json.RawMessage(cachedJobRequest+`,"all_moves":true}`)
		}
		b.Run(name, func(b *testing.B) {
			searcher := func(c cache.Cache) *service.Searcher {
				return &service.Searcher{Loader: cache.NewLoader(c, time.Hour), Workers: 1}
			}
			rec := &recorder{Cache: cache.NewMemory(1<<30, time.Hour), set: map[string][]byte{}}
			kind := service.PolyominoAnalyzeJob{Search: searcher(rec), MaxDuration: time.Minute, Workers: 1}
			units, err := kind.Plan(context.Background(), req)
			if err != nil {
				b.Fatal(err)
			}
			for _, u := range units {
				if _, err := kind.Run(context.Background(), req, u, func(int64) {}); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				b.StopTimer()
				c := cache.NewMemory(1<<30, time.Hour)
				for k, v := range rec.set {
					_ = c.Set(context.Background(), k, v, 0)
				}
				store, err := jobs.NewMemoryStore(b.TempDir())
				if err != nil {
					b.Fatal(err)
				}
				kind := service.PolyominoAnalyzeJob{Search: searcher(c), MaxDuration: time.Minute, Workers: 1}
				jm, err := jobs.NewManager(store, []jobs.Kind{kind}, jobs.Options{Poll: 20 * time.Millisecond})
				if err != nil {
					b.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() { _ = jm.RunWorker(ctx, "bench", 1); close(done) }()
				b.StartTimer()
				job, err := jm.Submit(ctx, kind.Name(), req)
				for err == nil && !job.Status.Final() {
					time.Sleep(5 * time.Millisecond)
					job, err = jm.Get(ctx, job.ID)
				}
				b.StopTimer()
				if err != nil || job.Status != jobs.StatusDone {
					b.Fatalf("job: %v %s %s", err, job.Status, job.Error)
				}
				if job.Progress.Total != len(units) {
					b.Fatalf("%d units, want %d", job.Progress.Total, len(units))
				}
				cancel()
				<-done
				b.StartTimer()
			}
		})
	}
}
