package api

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	swaggerFiles "github.com/swaggo/files"
	ginSwagger "github.com/swaggo/gin-swagger"

	"github.com/gamesolver/gamesolver/openapi"
)

func registerDocs(r *gin.Engine) {
	r.GET("/openapi.json", openapiJSON)
	r.HEAD("/openapi.json", openapiJSON)
	ui := swaggerUI(ginSwagger.WrapHandler(swaggerFiles.Handler, ginSwagger.URL("/openapi.json")))
	docs := func(c *gin.Context) {
		switch c.Param("any") {
		case "/": // the directory itself: its page
			c.Redirect(http.StatusMovedPermanently, "/swagger/index.html")
		case "/doc.json":
			// gin-swagger would serve swag's template (docs.go), with an
			// empty host and schemes and without the request examples:
			// the one document everywhere.
			openapiJSON(c)
		default:
			if c.Request.Method == http.MethodHead {
				// gin-swagger answers GET only; the server drops the
				// body of a HEAD request's answer (its own copy of the
				// request still says HEAD).
				orig := c.Request
				c.Request = orig.Clone(orig.Context())
				c.Request.Method = http.MethodGet
				defer func() { c.Request = orig }()
			}
			// A missing asset is a problem like any unknown path's, not
			// the file server's text/plain "404 page not found".
			w := &notFound{ResponseWriter: c.Writer}
			c.Writer = w
			ui(c)
			c.Writer = w.ResponseWriter
			if w.caught {
				writeProblem(c, newProblem(c, "not-found", "no Swagger UI asset at "+clipAt(c.Request.URL.Path, maxLoggedPath)))
			}
		}
	}
	r.GET("/swagger/*any", docs)
	r.HEAD("/swagger/*any", docs) // uptime probes
	toIndex := func(c *gin.Context) { c.Redirect(http.StatusMovedPermanently, "/swagger/index.html") }
	r.GET("/swagger", toIndex)
	r.HEAD("/swagger", toIndex)
}

// openapiJSON godoc
//
//	@Summary		The OpenAPI document
//	@Description	The generated OpenAPI (Swagger 2.0) document describing every endpoint; browse it at /swagger/index.html.
//	@Tags			service
//	@Produce		json
//	@Param			If-None-Match	header	string	false	"the ETag of a copy the client has: 304 while it is current"
//	@Success		200	{object}	object
//	@Success		304	"the client's copy (If-None-Match) is current"
//	@Header			all		{string}	X-Request-ID	"the request's id: the client's X-Request-ID when it sent a valid one, else a new one; in the logs and in every problem"
//	@Header			200,304	{string}	ETag	"the document's version (a hash of it): send it back in If-None-Match"
//	@Header			200,304	{string}	Cache-Control	"no-cache: keep it, but revalidate it (If-None-Match) before use"
//	@ID				getOpenAPI
//	@Router			/openapi.json [get]
func openapiJSON(c *gin.Context) {
	revalidated(c, "application/json", openapi.JSON, openapiETag())
}

// openapiETag is the OpenAPI document's ETag, computed once.
var openapiETag = sync.OnceValue(func() string { return etagOf(openapi.JSON) })

func etagOf(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}

// revalidated sends body, a document that changes only with the server's
// version (the OpenAPI document, the games), with its strong ETag etag
// ("" to compute it) and Cache-Control: no-cache, so that a client or
// proxy keeps it and asks again with If-None-Match, answered 304 without a
// body while it is the same. Other conditional and range headers are
// ignored: the answer is the whole document or 304.
func revalidated(c *gin.Context, contentType string, body []byte, etag string) {
	if etag == "" {
		etag = etagOf(body)
	}
	h := c.Writer.Header()
	h.Set("ETag", etag) // Compress suffixes it when it compresses
	h.Set("Cache-Control", "no-cache")
	// The representation this request gets, and so the tag it compares
	// (RFC 9110, 13.1.2): the compressed copy's when it gets that.
	current := etag
	if compressedFor(c.Request, len(body)) {
		current = gzipTag(etag)
	}
	if noneMatch(c.GetHeader("If-None-Match"), current) {
		h.Set("ETag", current)
		c.Status(http.StatusNotModified)
		return
	}
	if current != etag {
		if gz := precompressed(etag, body); len(gz) > 0 {
			// Compressed once, at the best level, and sent as it is
			// (Compress passes an answer with a Content-Encoding through):
			// the OpenAPI document's 270 KB were compressed again at
			// each request, sent chunked, without a length.
			h.Set("Content-Encoding", "gzip")
			h.Set("ETag", current) // Compress suffixes only what it compresses
			addVary(h, "Accept-Encoding")
			body = gz
		}
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	c.Data(http.StatusOK, contentType, body)
}

// maxPrecompressed bounds how many documents precompressed keeps: the
// OpenAPI document and the games catalogue's versions (it grows while
// engines register), not one per request.
const maxPrecompressed = 16

var (
	precompressedMu   sync.Mutex
	precompressedDocs = map[string][]byte{}
)

// precompressed is body, whose strong ETag is etag, gzip-compressed at
// the best level, compressed on its first use and kept; past
// maxPrecompressed documents, one kept goes (a catalogue that changed
// since, most likely: the current ones are asked for again at once).
func precompressed(etag string, body []byte) []byte {
	precompressedMu.Lock()
	defer precompressedMu.Unlock()
	if gz, ok := precompressedDocs[etag]; ok {
		return gz
	}
	for old := range precompressedDocs {
		if len(precompressedDocs) < maxPrecompressed {
			break
		}
		delete(precompressedDocs, old)
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression) // a valid level: no error
	_, _ = zw.Write(body)                                    // a bytes.Buffer's writes do not fail
	_ = zw.Close()
	gz := buf.Bytes()
	precompressedDocs[etag] = gz
	return gz
}

// noneMatch tells whether an If-None-Match header value names etag (or is
// "*"): the weak comparison of RFC 9110, which ignores W/.
func noneMatch(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

// notFound passes an answer through, unless its status is 404: then it
// writes nothing and records it (caught), for the caller to answer.
type notFound struct {
	gin.ResponseWriter
	caught bool
}

func (w *notFound) WriteHeader(code int) {
	if code == http.StatusNotFound {
		w.caught = true
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *notFound) Write(b []byte) (int, error) {
	if w.caught {
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

func (w *notFound) WriteString(s string) (int, error) {
	if w.caught {
		return len(s), nil
	}
	return w.ResponseWriter.WriteString(s)
}

// swaggerUI godoc
//
//	@Summary		Swagger UI
//	@Description	The OpenAPI document in Swagger UI, where every operation can be tried ("Try it out" starts from a valid example). /swagger and /swagger/ redirect here; the page's assets live under /swagger/ too.
//	@Tags			service
//	@Produce		html
//	@Success		200	{string}	string	"the page"
//	@Header			all		{string}	X-Request-ID	"the request's id: the client's X-Request-ID when it sent a valid one, else a new one; in the logs and in every problem"
//	@ID				getSwaggerUI
//	@Router			/swagger/index.html [get]
func swaggerUI(h gin.HandlerFunc) gin.HandlerFunc { return h }

// metrics godoc
//
//	@Summary		Prometheus metrics
//	@Description	The operator's metrics in the Prometheus text format: requests by route and status, latency, solver slots and queue, searches and nodes by game, cache hits and misses by backend, Redis reachability, jobs and units by status, the Go runtime. Not rate-limited. A server started with --metrics-addr answers them on that address only (404 here).
//	@Tags			service
//	@Produce		plain,application/problem+json
//	@Success		200	{string}	string	"the metrics"
//	@Failure		404	{object}	Problem	"the server serves its metrics on --metrics-addr, not here"
//	@Header			all		{string}	X-Request-ID	"the request's id: the client's X-Request-ID when it sent a valid one, else a new one; in the logs and in every problem"
//	@ID				getMetrics
//	@Router			/metrics [get]
func metrics(g prometheus.Gatherer) gin.HandlerFunc {
	return gin.WrapH(promhttp.HandlerFor(g, promhttp.HandlerOpts{}))
}
