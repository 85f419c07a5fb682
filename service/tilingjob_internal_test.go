package service

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/engine/tiling"
	"github.com/gamesolver/gamesolver/service/cache"
)

// TestTilingsJobParts: a tilings job without a budget is tilingParts
// units whose combined answer is the synchronous search's (counts and
// solutions in order), kept in the cache; a job with a budget, or whose
// count the cache holds, is one unit.
func TestTilingsJobParts(t *testing.T) {
	ctx := context.Background()
	for _, body := range []string{
		`{"width":8,"height":8,"blocked":["d4","e4","d5","e5"],"limit":30}`,
		`{"width":10,"height":6,"limit":7,"every_tiling":true}`,
		`{"board":["#......","......#",".......","......."],"pieces":"ILNPU","allow_leftover":true,"limit":1000}`,
	} {
		c := cache.NewMemory(1<<24, time.Minute)
		s := &Searcher{Loader: cache.NewLoader(c, time.Minute), Slots: NewSlots(2, 4, time.Second, nil),
			Budgets: Budgets{Default: time.Minute, Max: time.Minute}, Workers: 2}
		job := TilingsJob{Tilings: NewTilings(s), MaxDuration: time.Minute, Workers: 1}
		units, err := job.Plan(ctx, json.RawMessage(body))
		if err != nil || len(units) != tilingParts {
			t.Fatalf("%s: %d units, %v", body, len(units), err)
		}
		results := map[int]json.RawMessage{}
		for k, u := range units {
			if len(u) > 64 {
				t.Fatalf("%s: unit %d carries %d bytes: %s", body, k, len(u), u)
			}
			if results[k], err = job.Run(ctx, json.RawMessage(body), u, func(int64) {}); err != nil {
				t.Fatalf("%s: unit %d: %v", body, k, err)
			}
			if _, done, err := job.Combine(ctx, json.RawMessage(body), len(units), results); done != (k == len(units)-1) || err != nil {
				t.Fatalf("%s: after unit %d: done %t, %v", body, k, done, err)
			}
		}
		raw, _, err := job.Combine(ctx, json.RawMessage(body), len(units), results)
		var got TilingAnswer
		if err != nil || json.Unmarshal(raw, &got) != nil {
			t.Fatalf("%s: combine: %v", body, err)
		}
		// The synchronous search, in a service without the job's cache.
		var r tilingsJobRequest
		_ = json.Unmarshal([]byte(body), &r)
		fresh := &Searcher{Loader: cache.NewLoader(cache.NewMemory(1<<24, time.Minute), time.Minute), Slots: NewSlots(2, 4, time.Second, nil),
			Budgets: Budgets{Default: time.Minute, Max: time.Minute}, Workers: 2}
		want, err := NewTilings(fresh).Solve(ctx, r.query())
		if err != nil || !want.Result.Complete || want.Result.CountAll == 0 {
			t.Fatalf("%s: synchronous: %v %+v", body, err, want.Result)
		}
		g, w := got.Result, want.Result
		if !g.Complete || g.Count != w.Count || g.CountAll != w.CountAll || g.Symmetries != w.Symmetries ||
			!slices.EqualFunc(g.Solutions, w.Solutions, slices.Equal) || !reflect.DeepEqual(g.Placements, w.Placements) {
			t.Errorf("%s: job %d/%d, %d solutions; search %d/%d, %d solutions", body, g.Count, g.CountAll, len(g.Solutions), w.Count, w.CountAll, len(w.Solutions))
		}
		// Kept for the requests: a second job is one unit, answered from
		// the cache.
		units, err = job.Plan(ctx, json.RawMessage(body))
		if err != nil || len(units) != 1 {
			t.Fatalf("%s: second job: %d units, %v", body, len(units), err)
		}
		raw, err = job.Run(ctx, json.RawMessage(body), units[0], func(int64) {})
		var again TilingAnswer
		if err != nil || json.Unmarshal(raw, &again) != nil || again.Source != SourceCache || again.Result.Count != w.Count {
			t.Errorf("%s: second job's unit: %v %+v", body, err, again)
		}
		// The unit carries the count: a worker whose cache lost it (the
		// planner's copy in its memory only) answers it all the same,
		// without a search; a worker of a version that knows no cached
		// unit sees a part of another split, and refuses it.
		var carried tilingsPart
		if err := json.Unmarshal(units[0], &carried); err != nil || carried.Version == tiling.PartsVersion || carried.Cached == nil {
			t.Errorf("%s: the cached unit %s", body, units[0])
		}
		lost := &Searcher{Loader: cache.NewLoader(cache.NewMemory(1<<20, time.Minute), time.Minute), Budgets: Budgets{Default: time.Minute, Max: time.Minute}}
		elsewhere := TilingsJob{Tilings: NewTilings(lost), MaxDuration: time.Minute, Workers: 1}
		nodes := int64(0)
		raw, err = elsewhere.Run(ctx, json.RawMessage(body), units[0], func(n int64) { nodes += n })
		again = TilingAnswer{}
		if err != nil || json.Unmarshal(raw, &again) != nil || again.Source != SourceCache || again.Result.Count != w.Count || nodes != 0 {
			t.Errorf("%s: the unit on a worker without the count: %v, %d nodes, %+v", body, err, nodes, again)
		}
	}
	// A part needs the job's request, which units planned before
	// 2026-11-28 carried.
	part, _ := json.Marshal(tilingsPart{Part: 3, Parts: tilingParts, Version: tiling.PartsVersion})
	s1 := &Searcher{Loader: cache.NewLoader(cache.NewMemory(1<<20, time.Minute), time.Minute), Budgets: Budgets{Default: time.Minute, Max: time.Minute}}
	job1 := TilingsJob{Tilings: NewTilings(s1), MaxDuration: time.Minute, Workers: 1}
	if _, err := job1.Run(ctx, nil, part, func(int64) {}); err == nil {
		t.Error("a part run without the job's request")
	}
	request := json.RawMessage(`{"width":10,"height":6,"limit":3}`)
	now, err := job1.Run(ctx, request, part, func(int64) {})
	old, _ := json.Marshal(tilingsPart{Request: request, Part: 3, Parts: tilingParts, Version: tiling.PartsVersion})
	before, err2 := job1.Run(ctx, nil, old, func(int64) {})
	var a, b tilingAnswer
	_, _ = json.Unmarshal(now, &a), json.Unmarshal(before, &b)
	if err != nil || err2 != nil || a.Result.CountAll == 0 || a.Result.Count != b.Result.Count || a.Result.CountAll != b.Result.CountAll || !reflect.DeepEqual(a.Result.Solutions, b.Result.Solutions) {
		t.Errorf("a part given the job's request: %v %.80s; carrying it: %v %.80s", err, now, err2, before)
	}
	// A part cut by another version of the split is refused, not added.
	other, _ := json.Marshal(tilingsPart{Request: json.RawMessage(`{"width":10,"height":6}`), Part: 0, Parts: tilingParts, Version: tiling.PartsVersion + 1})
	s0 := &Searcher{Loader: cache.NewLoader(cache.NewMemory(1<<20, time.Minute), time.Minute), Budgets: Budgets{Default: time.Minute, Max: time.Minute}}
	if _, err := (TilingsJob{Tilings: NewTilings(s0), MaxDuration: time.Minute}).Run(ctx, nil, other, func(int64) {}); err == nil || !strings.Contains(err.Error(), "parts version") {
		t.Errorf("a part of another version: %v", err)
	}
	// With a budget: one unit, whose search may stop.
	s := &Searcher{Loader: cache.NewLoader(cache.NewMemory(1<<20, time.Minute), time.Minute), Budgets: Budgets{Default: time.Minute, Max: time.Minute}}
	units, err := TilingsJob{Tilings: NewTilings(s), MaxDuration: time.Minute}.Plan(ctx, json.RawMessage(`{"width":10,"height":6,"budget_ms":500}`))
	if err != nil || len(units) != 1 {
		t.Errorf("with a budget: %d units, %v", len(units), err)
	}
}

// TestTilingsCombineListsClassOnce: parts cut short may each list a
// tiling of one class (its images); the job's answer lists the class once.
func TestTilingsCombineListsClassOnce(t *testing.T) {
	ctx := context.Background()
	body := json.RawMessage(`{"width":20,"height":3,"limit":10}`)
	s := &Searcher{Loader: cache.NewLoader(cache.NewMemory(1<<20, time.Minute), time.Minute), Budgets: Budgets{Default: time.Minute, Max: time.Minute}}
	job := TilingsJob{Tilings: NewTilings(s), MaxDuration: time.Minute}
	_, p, err := job.problemOf(body)
	if err != nil {
		t.Fatal(err)
	}
	all, err := tiling.Solve(ctx, p, tiling.Options{EveryTiling: true, Limit: 8})
	if err != nil || len(all.Placements) != 8 || all.Count != 2 {
		t.Fatalf("every tiling of 3 x 20: %v %d %d", err, len(all.Placements), all.Count)
	}
	results := map[int]json.RawMessage{}
	for k := range tilingParts {
		part := tiling.Result{Symmetries: all.Symmetries, Complete: k >= 4}
		if k < 4 { // the first four parts each list two tilings
			for _, i := range []int{2 * k, (2*k + 3) % 8} {
				part.Solutions = append(part.Solutions, all.Solutions[i])
				part.Placements = append(part.Placements, all.Placements[i])
			}
		}
		results[k], _ = json.Marshal(tilingAnswer{Result: part})
	}
	raw, done, err := job.Combine(ctx, body, tilingParts, results)
	var got TilingAnswer
	if err != nil || !done || json.Unmarshal(raw, &got) != nil {
		t.Fatalf("combine: %v %t", err, done)
	}
	classes := map[string]bool{}
	for _, pl := range got.Result.Placements {
		classes[p.Region.TilingClass(pl)] = true
	}
	if got.Result.Complete || len(got.Result.Solutions) != 2 || len(classes) != 2 {
		t.Errorf("%d solutions in %d classes (complete %t), want one of each of the 2 classes", len(got.Result.Solutions), len(classes), got.Result.Complete)
	}
}

// TestTilingsJobFlights: two one-unit jobs of one problem share a search
// only with one budget (a job without a budget took the partial count of
// a 300 ms job's, and a short job could wait for a long one).
func TestTilingsJobFlights(t *testing.T) {
	ctx := context.Background()
	s := &Searcher{Loader: cache.NewLoader(cache.NewMemory(1<<24, time.Minute), time.Minute), Slots: NewSlots(2, 4, time.Second, nil),
		Budgets: Budgets{Default: time.Minute, Max: time.Minute}, Workers: 1}
	job := TilingsJob{Tilings: NewTilings(s), MaxDuration: time.Second, Workers: 1}
	short := make(chan error, 1)
	go func() {
		_, err := job.Run(ctx, nil, json.RawMessage(`{"width":8,"height":8,"allow_leftover":true,"budget_ms":100}`), func(int64) {})
		short <- err
	}()
	time.Sleep(20 * time.Millisecond)
	start := time.Now()
	// An old unit (one unit, no budget): its search runs its own second.
	raw, err := job.Run(ctx, nil, json.RawMessage(`{"width":8,"height":8,"allow_leftover":true}`), func(int64) {})
	var a TilingAnswer
	if err != nil || json.Unmarshal(raw, &a) != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 700*time.Millisecond || a.Result.Complete {
		t.Errorf("the unit without a budget answered after %v (complete %t): the 100 ms job's count", took, a.Result.Complete)
	}
	if err := <-short; err != nil {
		t.Fatal(err)
	}
}

// TestTilingsOldUnits: units stored by the version before the checks of
// empty pieces and of nulls in lists run as they did (the twelve
// pentominoes).
func TestTilingsOldUnits(t *testing.T) {
	s := &Searcher{Loader: cache.NewLoader(cache.NewMemory(1<<24, time.Minute), time.Minute), Slots: NewSlots(2, 4, time.Second, nil),
		Budgets: Budgets{Default: time.Minute, Max: time.Minute}, Workers: 1}
	job := TilingsJob{Tilings: NewTilings(s), MaxDuration: time.Minute, Workers: 2}
	for _, u := range []string{`{"width":10,"height":6,"pieces":""}`, `{"width":10,"height":6,"pieces":["F","I","L","N","P","T","U","V","W","X","Y",null,"Z"]}`} {
		raw, err := job.Run(context.Background(), nil, json.RawMessage(u), func(int64) {})
		var a TilingAnswer
		if err != nil || json.Unmarshal(raw, &a) != nil || a.Result.Count != 2339 {
			t.Errorf("%s: %v %+v", u, err, a.Result)
		}
	}
}

// TestTilingKeysTellPiecesApart: two piece lists share a cache key only
// when they are one multiset of pieces (an audit found hexomino lists
// with the same characters, H12 and H21, and the tetromino and pentomino
// I, L, T, served each other's answers from the cache).
func TestTilingKeysTellPiecesApart(t *testing.T) {
	names := func(s string) *PieceNames { n := PieceNames(s); return &n }
	key := func(q TilingQuery) string {
		t.Helper()
		p, err := NewTilings(nil).problem(q)
		if err != nil {
			t.Fatal(err)
		}
		return tilingKey(p, q)
	}
	board := func(pieces string, order int) TilingQuery {
		return TilingQuery{Width: 8, Height: 8, Pieces: names(pieces), Order: order, AllowLeftover: true, Limit: 1}
	}
	for _, tc := range []struct {
		a, b TilingQuery
		same bool
	}{
		{board("H12,H13,H23,H11", 0), board("H21,H31,H32,H11", 0), false},
		{board("H12", 0), board("H21", 0), false},
		{board("ILT", 4), board("ILT", 5), false},
		{board("ILT", 0), board("ILT", 5), true},   // pentominoes unless O or S is listed
		{board("F,I,L", 0), board("LIF", 0), true}, // one multiset
		{board("H01,H02", 0), board("H2 H1", 0), true},
	} {
		if got := key(tc.a) == key(tc.b); got != tc.same {
			t.Errorf("%s (order %d) and %s (order %d): one key %v, want %v", *tc.a.Pieces, tc.a.Order, *tc.b.Pieces, tc.b.Order, got, tc.same)
		}
	}
	// Through the cache: the second puzzle gets its own count.
	c := cache.NewMemory(1<<24, time.Minute)
	s := &Searcher{Loader: cache.NewLoader(c, time.Minute), Slots: NewSlots(1, 4, time.Second, nil),
		Budgets: Budgets{Default: time.Minute, Max: time.Minute}, Workers: 1}
	ts := NewTilings(s)
	ctx := context.Background()
	counts := map[int]int64{}
	for _, order := range []int{4, 5, 4} {
		q := TilingQuery{Width: 5, Height: 4, Pieces: names("ILT"), Order: order, AllowLeftover: true}
		a, err := ts.Solve(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := NewTilings(&Searcher{Loader: cache.NewLoader(cache.NewMemory(1<<20, time.Minute), time.Minute), Slots: NewSlots(1, 4, time.Second, nil),
			Budgets: Budgets{Default: time.Minute, Max: time.Minute}, Workers: 1}).Solve(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if a.Result.Count != fresh.Result.Count || a.Result.CountAll != fresh.Result.CountAll {
			t.Errorf("ILT of order %d: %d (%d) from %s, a search without the cache %d (%d)", order, a.Result.Count, a.Result.CountAll, a.Source, fresh.Result.Count, fresh.Result.CountAll)
		}
		counts[order] = a.Result.CountAll
	}
	if counts[4] == counts[5] {
		t.Errorf("the two orders count %d tilings each: the test needs puzzles that differ", counts[4])
	}
}

// TestCachedTilingChecked: a cached tilings answer that is not one of
// the problem asked (edited in Redis by an audit: counts 7 and 3, a row
// "garbage", a placement "Q:z99") is counted again and replaced, by the
// requests and by the jobs.
func TestCachedTilingChecked(t *testing.T) {
	ctx := context.Background()
	c := cache.NewMemory(1<<24, time.Minute)
	s := &Searcher{Loader: cache.NewLoader(c, time.Minute), Slots: NewSlots(1, 4, time.Second, nil),
		Budgets: Budgets{Default: time.Minute, Max: time.Minute}, Workers: 1}
	ts := NewTilings(s)
	q := TilingQuery{Width: 12, Height: 5, Limit: 2}
	want, err := ts.Solve(ctx, q)
	if err != nil || !want.Result.Complete {
		t.Fatalf("%v %+v", err, want.Result)
	}
	p, err := ts.problem(q)
	if err != nil {
		t.Fatal(err)
	}
	key := tilingKey(p, q)
	edits := map[string]string{
		"the audit's": `{"result":{"Count":7,"CountAll":3,"Solutions":[["XXXX","garbage"]],"Placements":[["Q:z99"]],"Complete":true,"Symmetries":4}}`,
		"counts only": fmt.Sprintf(`{"result":{"Count":%d,"CountAll":%d,"Fixed":%d,"Complete":true,"Symmetries":4}}`, want.Result.Count, want.Result.CountAll, want.Result.Fixed),
	}
	job := TilingsJob{Tilings: ts, MaxDuration: time.Minute, Workers: 1}
	body, _ := json.Marshal(map[string]any{"width": 12, "height": 5, "limit": 2})
	for name, entry := range edits {
		if err := c.Set(ctx, key, []byte(entry), time.Minute); err != nil {
			t.Fatal(err)
		}
		got, err := ts.Solve(ctx, q)
		if err != nil || got.Source == SourceCache || got.Result.Count != want.Result.Count || !reflect.DeepEqual(got.Result.Placements, want.Result.Placements) {
			t.Errorf("%s entry: %v, source %s, count %d, %d tilings; want %d", name, err, got.Source, got.Result.Count, len(got.Result.Placements), want.Result.Count)
		}
		if err := c.Set(ctx, key, []byte(entry), time.Minute); err != nil {
			t.Fatal(err)
		}
		if units, err := job.Plan(ctx, body); err != nil || len(units) != tilingParts {
			t.Errorf("%s entry: a job of %d units (%v); want %d parts, not the cache's answer", name, len(units), err, tilingParts)
		}
	}
}
