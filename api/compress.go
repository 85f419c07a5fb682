package api

import (
	"compress/gzip"
	"net/http"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzhttp"
)

// Answers of at least compressMinSize bytes go out gzip-compressed to a
// client that accepts it (Accept-Encoding: gzip), at compressLevel: the
// big answers (a Teeko annotation of 2.5 MB, every move of a 16 x 16
// hexomino board, a tiling job's list) are JSON of few distinct words and
// shrink about tenfold; below 2 KiB the saving is not worth a compressor.
// Event streams are sent as they are (each event flushed on its own).
const (
	compressMinSize = 2 << 10
	compressLevel   = gzip.BestSpeed
)

// etagGzip is the suffix of a compressed answer's ETag: another
// representation, so another tag (RFC 9110, 8.8.3). revalidated compares
// If-None-Match with the tag of the representation the request gets;
// for the handlers that know no compression, Compress adds each such
// tag's plain form to the request's If-None-Match.
const etagGzip = "-gzip"

// Compress wraps h (the whole API: answers, problems, documents) so that
// its answers are compressed as compressMinSize says. Every answer then
// carries Vary: Accept-Encoding, but event streams and CORS preflights.
func Compress(h http.Handler) http.Handler {
	compressed := compressor(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if lines := r.Header.Values("Accept-Encoding"); len(lines) > 0 {
			// One list, as gzhttp reads it (the first line alone: a
			// gzip;q=0 of a later line was not read).
			ae := strings.Join(lines, ",")
			if n := gzipAliases(ae); len(lines) > 1 || n != ae {
				r.Header.Set("Accept-Encoding", n)
			}
		}
		if strings.HasPrefix(r.URL.Path, "/v1/jobs/") && strings.HasSuffix(r.URL.Path, "/events") {
			// A job's event stream, as it is: its headers go out at once
			// (gzhttp holds them back until a body's first bytes, and a
			// stream resumed at the job's current state writes none).
			h.ServeHTTP(w, r)
			return
		}
		if inm := r.Header.Get("If-None-Match"); strings.Contains(inm, etagGzip+`"`) && compressedFor(r, compressMinSize) {
			// A compressed copy's tag names the answer's own for the
			// handlers that know no compression (the Swagger UI's files:
			// a browser downloaded 394 KB again at each revalidation).
			for _, t := range strings.Split(inm, ",") {
				if t = strings.TrimSpace(t); strings.HasSuffix(t, etagGzip+`"`) {
					inm += ", " + strings.Replace(t, etagGzip+`"`, `"`, 1)
				}
			}
			r.Header.Set("If-None-Match", inm)
		}
		compressed.ServeHTTP(w, r)
	})
}

// compressor is gzhttp's wrapper with Compress's settings.
func compressor(h http.Handler) http.Handler {
	wrap, err := gzhttp.NewWrapper(
		gzhttp.MinSize(compressMinSize),
		gzhttp.CompressionLevel(compressLevel),
		gzhttp.EnableZstd(false),
		gzhttp.ExceptContentTypes([]string{"text/event-stream"}),
		gzhttp.SuffixETag(etagGzip),
	)
	if err != nil {
		panic("api: the compression's options: " + err.Error()) // constant options: a bug
	}
	return wrap(h)
}

// gzipTag is the tag of etag's compressed copy (gzhttp's SuffixETag).
func gzipTag(etag string) string {
	if i := strings.LastIndex(etag, `"`); i >= 0 {
		return etag[:i] + etagGzip + etag[i:]
	}
	return etag + etagGzip
}

// gzipAliases is an Accept-Encoding with gzip named where it names gzip
// otherwise, which gzhttp does not take: as "x-gzip" (RFC 9110, 8.4.1.3:
// the same coding), or as "*" (any coding not named) when gzip is not
// named, each with its q-value.
func gzipAliases(ae string) string {
	items := strings.Split(ae, ",")
	named, star := false, -1
	for i, c := range items {
		name, params, _ := strings.Cut(c, ";")
		switch name = strings.TrimSpace(name); {
		case strings.EqualFold(name, "gzip"):
			named = true
		case strings.EqualFold(name, "x-gzip"):
			named = true
			items[i] = joinCoding("gzip", params)
		case name == "*":
			star = i
		}
	}
	if !named && star >= 0 {
		_, params, _ := strings.Cut(items[star], ";")
		items = append(items, joinCoding("gzip", params))
	}
	return strings.Join(items, ",")
}

// joinCoding is an Accept-Encoding item: a coding and its parameters.
func joinCoding(name, params string) string {
	if params == "" {
		return name
	}
	return name + ";" + params
}

// compressedFor tells whether an answer of size bytes goes out compressed
// to r: a GET (not a HEAD) whose Accept-Encoding gives gzip a q-value
// above 0, as gzhttp reads it (gzip named, or x-gzip or "*": gzipAliases),
// and an answer of compressMinSize bytes or more.
func compressedFor(r *http.Request, size int) bool {
	if r.Method == http.MethodHead || size < compressMinSize {
		return false
	}
	for _, c := range strings.Split(gzipAliases(r.Header.Get("Accept-Encoding")), ",") {
		name, params, _ := strings.Cut(c, ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
			continue
		}
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			if p = strings.TrimSpace(p); len(p) >= 2 && strings.EqualFold(p[:2], "q=") {
				q, _ = strconv.ParseFloat(p[2:], 64)
			}
		}
		return q > 0
	}
	return false
}

// addVary adds value to h's Vary unless it names it already.
func addVary(h http.Header, value string) {
	for _, v := range h.Values("Vary") {
		for _, f := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(f), value) {
				return
			}
		}
	}
	h.Add("Vary", value)
}
