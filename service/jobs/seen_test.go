package jobs

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestSeenResultsBounded: the results kept are bounded; the jobs least
// recently combined go first, a job over by its end; a job's answer holds
// the results the store has, kept or just fetched.
func TestSeenResultsBounded(t *testing.T) {
	r := json.RawMessage(strings.Repeat("x", 1000-seenEntryOverhead)) // 1000 bytes kept
	s := newSeenResults(3500)
	fetch := func(id string, indexes ...int) map[int]json.RawMessage {
		got := map[int]json.RawMessage{}
		_, kept := s.expect(id, -1)
		for _, i := range s.missing(kept, indexes) {
			got[i] = r
		}
		return s.add(id, kept, indexes, got)
	}
	if got := fetch("a", 0, 1); len(got) != 2 {
		t.Fatalf("a: %d results", len(got))
	}
	if m := s.missing(s.jobs["a"], []int{0, 1, 2}); fmt.Sprint(m) != "[2]" {
		t.Errorf("a lacks %v, want [2]", m)
	}
	fetch("b", 0)
	fetch("a", 0, 1) // a used after b
	fetch("c", 0)    // 4000 bytes: b goes
	if m := s.missing(s.jobs["b"], []int{0}); len(m) != 1 {
		t.Errorf("b kept past the bound")
	}
	if m := s.missing(s.jobs["a"], []int{0, 1}); len(m) != 0 {
		t.Errorf("a, used last but one, lost %v", m)
	}
	if jobs, bytes := s.size(); jobs != 2 || bytes != 3000 {
		t.Errorf("kept %d jobs, %d bytes; want 2, 3000", jobs, bytes)
	}
	s.forget("a")
	if jobs, bytes := s.size(); jobs != 1 || bytes != 1000 {
		t.Errorf("after a's end: %d jobs, %d bytes; want 1, 1000", jobs, bytes)
	}
	// A job larger than the bound is answered whole, and not kept; the
	// other jobs' results stay.
	if got := fetch("huge", 0, 1, 2, 3, 4); len(got) != 5 {
		t.Errorf("huge: %d results", len(got))
	}
	if jobs, bytes := s.size(); jobs != 1 || bytes != 1000 {
		t.Errorf("after huge: %d jobs, %d bytes kept; want c's, 1 and 1000", jobs, bytes)
	}
	if m := s.missing(s.jobs["c"], []int{0}); len(m) != 0 {
		t.Errorf("c lost to huge")
	}
}

// TestSeenResultsEndedNotKeptAgain: a completion under way when its job
// ended (forget) gets its answer but keeps nothing again; the ids of jobs
// over are bounded.
func TestSeenResultsEndedNotKeptAgain(t *testing.T) {
	r := json.RawMessage(`{"sum":1}`)
	s := newSeenResults(1 << 20)
	s.add("a", nil, []int{0}, map[int]json.RawMessage{0: r})
	_, base := s.expect("a", 1) // a completion of unit 1 begins
	s.forget("a")               // the job ends on another slot
	got := s.sameAnd("a", base, 1, r)
	if len(got) != 2 {
		t.Errorf("answer after the end: %d results, want 2", len(got))
	}
	if got := s.add("a", nil, []int{0, 1}, map[int]json.RawMessage{0: r, 1: r}); len(got) != 2 {
		t.Errorf("fetched after the end: %d results, want 2", len(got))
	}
	if jobs, bytes := s.size(); jobs != 0 || bytes != 0 {
		t.Errorf("kept after the job's end: %d jobs, %d bytes", jobs, bytes)
	}
	for i := range seenEnded {
		s.forget(fmt.Sprint("x", i))
	}
	if len(s.ended) != seenEnded || len(s.endedOrder) != seenEnded {
		t.Errorf("%d ids of jobs over (%d in order), want %d", len(s.ended), len(s.endedOrder), seenEnded)
	}
	s.add("a", nil, []int{0}, map[int]json.RawMessage{0: r}) // a forgotten as over
	if jobs, _ := s.size(); jobs != 1 {
		t.Errorf("a job over long ago: %d jobs kept, want 1", jobs)
	}
}
