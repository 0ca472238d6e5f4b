package metrics

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Handler serves the metrics g gathers in the Prometheus exposition formats,
// for the admin listener's /metrics. A scraper that accepts OpenMetrics
// (Prometheus does) gets it, with the request histogram's exemplars (the
// trace ids of sampled requests); the classic text format carries none. Pass the registry New registered on.
// A collector that fails is reported in the answer and the rest are still
// served, so one broken collector does not blind the scrape.
func Handler(g prometheus.Gatherer) http.Handler {
	return promhttp.HandlerFor(g, promhttp.HandlerOpts{
		ErrorHandling:     promhttp.ContinueOnError,
		EnableOpenMetrics: true,
		// Scrapes are cheap but not free; a few at once is all Prometheus
		// replicas ever need.
		MaxRequestsInFlight: 4,
		Timeout:             10 * time.Second,
	})
}
