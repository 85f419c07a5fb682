package service

import "testing"

// TestAnnotationSource: an annotation's source is its analyses' most
// costly: a search (or a position left unknown), else the cache, else the
// book, else the heuristic player's alone.
func TestAnnotationSource(t *testing.T) {
	search := PolyominoAnswer{Source: SourceSearch, Proven: true}
	cached := PolyominoAnswer{Source: SourceCache, Proven: true}
	fromBook := PolyominoAnswer{Source: SourceBook, Proven: true}
	heuristic := PolyominoAnswer{Source: SourceSearch, Heuristic: true}
	unknown := PolyominoAnswer{}
	for _, tc := range []struct {
		answers []PolyominoAnswer
		want    string
	}{
		{[]PolyominoAnswer{fromBook, cached, search}, "search"},
		{[]PolyominoAnswer{fromBook, cached, cached}, "cache"},
		{[]PolyominoAnswer{heuristic, fromBook, fromBook}, "book"},
		{[]PolyominoAnswer{heuristic, heuristic}, "heuristic"},
		{[]PolyominoAnswer{heuristic, unknown}, "search"},
		{[]PolyominoAnswer{cached, heuristic}, "cache"},
	} {
		if got := annotationSource(tc.answers); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.answers, got, tc.want)
		}
	}
}
