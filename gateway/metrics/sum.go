package metrics

import (
	"fmt"
	"io"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Sum adds every sample of the counter, gauge or untyped family name in
// r, a scrape in the classic text format (what the admin listener's
// /metrics answers a client that does not ask for OpenMetrics): for tools
// and tests that read one figure off a running gateway. found is false
// when r has no such family. A histogram or summary is an error, as is a
// scrape the parser refuses.
func Sum(r io.Reader, name string) (sum float64, found bool, err error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(r)
	if err != nil {
		return 0, false, fmt.Errorf("metrics: %w", err)
	}
	f, ok := families[name]
	if !ok {
		return 0, false, nil
	}
	for _, m := range f.GetMetric() {
		switch f.GetType() {
		case dto.MetricType_COUNTER:
			sum += m.GetCounter().GetValue()
		case dto.MetricType_GAUGE:
			sum += m.GetGauge().GetValue()
		case dto.MetricType_UNTYPED:
			sum += m.GetUntyped().GetValue()
		default:
			return 0, false, fmt.Errorf("metrics: %s is a %s, not a counter or gauge", name, f.GetType())
		}
	}
	return sum, true, nil
}
