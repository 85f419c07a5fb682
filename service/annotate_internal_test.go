package service

import "testing"

// TestAnnotationSource: an annotation's source is its analyses' most
// costly: a search (a heuristic answer after a search that proved nothing
// included), else the cache, else the book, else the heuristic player's
// alone; a position left unknown has none (all unknown: search).
func TestAnnotationSource(t *testing.T) {
	search := PolyominoAnswer{Source: SourceSearch, Proven: true, Nodes: 10}
	cached := PolyominoAnswer{Source: SourceCache, Proven: true}
	fromBook := PolyominoAnswer{Source: SourceBook, Proven: true}
	searchedHeuristic := PolyominoAnswer{Source: SourceSearch, Heuristic: true, Nodes: 24072}
	heuristic := PolyominoAnswer{Source: SourceSearch, Heuristic: true} // beyond the search: no node
	unknown := PolyominoAnswer{}
	for _, tc := range []struct {
		answers []PolyominoAnswer
		want    string
	}{
		{[]PolyominoAnswer{fromBook, cached, search}, "search"},
		{[]PolyominoAnswer{fromBook, cached, cached}, "cache"},
		{[]PolyominoAnswer{searchedHeuristic, fromBook, fromBook}, "search"}, // a reviewer's: it said book
		{[]PolyominoAnswer{heuristic, fromBook, fromBook}, "book"},
		{[]PolyominoAnswer{heuristic, heuristic}, "heuristic"},
		{[]PolyominoAnswer{heuristic, unknown}, "heuristic"},
		{[]PolyominoAnswer{cached, unknown}, "cache"},
		{[]PolyominoAnswer{unknown, unknown}, "search"},
	} {
		if got := annotationSource(tc.answers); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.answers, got, tc.want)
		}
	}
}
