package jobs

import (
	"container/list"
	"encoding/json"
	"sync"
)

// seenBytes bounds the results a RedisStore keeps of the jobs its workers
// combine (seenResults): the results of the latest jobs, about 64 MiB.
const seenBytes = 64 << 20

// seenEntryOverhead is what a kept result costs beyond its bytes: its map
// slot and slice header, about.
const seenEntryOverhead = 64

// seenResults keeps the unit results a RedisStore read, by job, so that a
// unit's completion fetches only the results it has not seen. A worker
// combines a job's results after each unit it finishes (Kind.Combine): the
// completion script returned every result so far, so a job of n units
// moved n²/2 results through Redis, a script of 11-34 ms a unit near the
// end of a 900-unit job on a loaded host (an audit), a stall of Redis's
// one thread for the cache and every other client. A result is written
// once (HSETNX) and never changes while its job lives, so what was read
// stays true; the jobs least recently combined go first past seenBytes.
type seenResults struct {
	mu    sync.Mutex
	max   int
	bytes int
	jobs  map[string]*seenJob
	order *list.List // of *seenJob, the most recently used first
	// ended holds the ids of the latest jobs forgotten (over), up to
	// seenEnded of them, oldest first in endedOrder: a completion under
	// way on another slot when the job ended keeps none of their results
	// again.
	ended      map[string]struct{}
	endedOrder []string
}

// seenEnded bounds the ids of jobs over that a seenResults remembers.
const seenEnded = 1024

type seenJob struct {
	id      string
	results map[int]json.RawMessage
	bytes   int
	at      *list.Element
}

func newSeenResults(max int) *seenResults {
	return &seenResults{max: max, jobs: map[string]*seenJob{}, order: list.New(), ended: map[string]struct{}{}}
}

// expect is how many results the store holds of job id if they are those
// kept and unit own's: the completion script compares it with its count,
// and when they agree sends no index back (sameAnd). It returns the job's
// kept results too (nil: none), which the completion answers from: another
// slot may drop them from s meanwhile (the bound, the job's end), but an
// entry dropped is never added to again, and one kept only grows.
func (s *seenResults) expect(id string, own int) (int, *seenJob) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.jobs[id]
	if j == nil {
		return 1, nil
	}
	if _, ok := j.results[own]; ok {
		return len(j.results), j
	}
	return len(j.results) + 1, j
}

// sameAnd returns the job's results, those of base (expect's) and unit
// own's result r (kept too): the store holds them and no other (expect
// agreed).
func (s *seenResults) sameAnd(id string, base *seenJob, own int, r json.RawMessage) map[int]json.RawMessage {
	s.mu.Lock()
	indexes := []int{own}
	if base != nil {
		for i := range base.results {
			indexes = append(indexes, i)
		}
	}
	s.mu.Unlock()
	return s.add(id, base, indexes, map[int]json.RawMessage{own: r})
}

// missing returns which of the units indexes (a job's results in the
// store) base, the job's kept results (expect's), lacks.
func (s *seenResults) missing(base *seenJob, indexes []int) []int {
	if base == nil {
		return indexes
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []int
	for _, i := range indexes {
		if _, ok := base.results[i]; !ok {
			out = append(out, i)
		}
	}
	return out
}

// add keeps fetched, results of job id just read, and returns the job's
// results with indexes (every result in the store), kept, in base (the
// kept results the caller counted on, though dropped since) or fetched: a
// copy, which the caller may keep while other slots add to the job's. A job whose results
// alone exceed the bound is not kept: it gets what was kept (nothing) and
// fetched, and fetches everything again next time.
func (s *seenResults) add(id string, base *seenJob, indexes []int, fetched map[int]json.RawMessage) map[int]json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, over := s.ended[id]; over {
		// Over (forget): its results are answered, not kept again.
		var kept map[int]json.RawMessage
		if base != nil {
			kept = base.results
		}
		return pick(indexes, fetched, kept)
	}
	j := s.jobs[id]
	if j == nil {
		j = &seenJob{id: id, results: make(map[int]json.RawMessage, len(indexes))}
		s.jobs[id] = j
		j.at = s.order.PushFront(j)
	} else {
		s.order.MoveToFront(j.at)
	}
	for i, r := range fetched {
		if _, ok := j.results[i]; !ok {
			j.results[i] = r
			n := len(r) + seenEntryOverhead
			j.bytes += n
			s.bytes += n
		}
	}
	var kept map[int]json.RawMessage
	if base != nil && base != j {
		kept = base.results
	}
	out := pick(indexes, j.results, kept)
	if j.bytes > s.max {
		// Alone past the bound: it goes, not first every other job's
		// results (each of its completions would empty the cache).
		s.dropLocked(j)
	}
	for s.bytes > s.max && s.order.Len() > 0 {
		s.dropLocked(s.order.Back().Value.(*seenJob))
	}
	return out
}

// pick returns the results of indexes found in from, first found first.
func pick(indexes []int, from ...map[int]json.RawMessage) map[int]json.RawMessage {
	out := make(map[int]json.RawMessage, len(indexes))
	for _, i := range indexes {
		for _, m := range from {
			if r, ok := m[i]; ok {
				out[i] = r
				break
			}
		}
	}
	return out
}

// forget drops job id's kept results (the job is over), and keeps none
// of them again (a completion under way on another slot).
func (s *seenResults) forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if j := s.jobs[id]; j != nil {
		s.dropLocked(j)
	}
	if _, ok := s.ended[id]; ok {
		return
	}
	if len(s.endedOrder) >= seenEnded {
		delete(s.ended, s.endedOrder[0])
		s.endedOrder = s.endedOrder[1:]
	}
	s.ended[id] = struct{}{}
	s.endedOrder = append(s.endedOrder, id)
}

func (s *seenResults) dropLocked(j *seenJob) {
	s.order.Remove(j.at)
	delete(s.jobs, j.id)
	s.bytes -= j.bytes
}

// size is how many jobs and bytes are kept (tests).
func (s *seenResults) size() (jobs, bytes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.jobs), s.bytes
}
