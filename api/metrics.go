package api

import (
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
)

// httpMetrics are the per-route request metrics.
type httpMetrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	inFlight *prometheus.GaugeVec
}

func newHTTPMetrics(reg prometheus.Registerer) *httpMetrics {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "gamesolver", Name: "http_requests_total",
			Help: "HTTP requests by route template (unmatched: no route), method (OTHER: none of HTTP's) and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "gamesolver", Name: "http_request_duration_seconds",
			Help:    "HTTP request latency by route template, method and status.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"route", "method", "status"}),
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "gamesolver", Name: "http_requests_in_flight",
			Help: "HTTP requests being served, by route template.",
		}, []string{"route"}),
	}
	reg.MustRegister(m.requests, m.latency, m.inFlight)
	return m
}

func (m *httpMetrics) middleware() gin.HandlerFunc {
	return func(c *gin.Context) {
		route := routeOf(c)
		g := m.inFlight.WithLabelValues(route)
		g.Inc()
		start := time.Now()
		defer func() {
			g.Dec()
			route, method := routeOf(c), methodLabel(c.Request.Method) // a 405's route is known now
			status := strconv.Itoa(c.Writer.Status())
			m.requests.WithLabelValues(route, method, status).Inc()
			m.latency.WithLabelValues(route, method, status).Observe(time.Since(start).Seconds())
		}()
		c.Next()
	}
}
