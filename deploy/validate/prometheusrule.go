package main

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// PrometheusRule is the part of the Prometheus Operator's CRD the chart
// renders: spec is a Prometheus rule file (groups of recording and alerting
// rules). Fields beyond it are refused like any unknown field.
type PrometheusRule struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              RuleFile `json:"spec"`
}

// RuleFile is a Prometheus rule file: what the PrometheusRule's spec holds
// and what deploy/prometheus/rules.yaml is.
type RuleFile struct {
	Groups []RuleGroup `json:"groups"`
}

// RuleGroup is one group of rules, evaluated together at its interval.
type RuleGroup struct {
	Name     string `json:"name"`
	Interval string `json:"interval,omitempty"`
	Limit    *int   `json:"limit,omitempty"`
	Rules    []Rule `json:"rules"`
}

// Rule is a recording rule (Record) or an alerting rule (Alert).
type Rule struct {
	Record        string            `json:"record,omitempty"`
	Alert         string            `json:"alert,omitempty"`
	Expr          string            `json:"expr"`
	For           string            `json:"for,omitempty"`
	KeepFiringFor string            `json:"keep_firing_for,omitempty"`
	Labels        map[string]string `json:"labels,omitempty"`
	Annotations   map[string]string `json:"annotations,omitempty"`
}

var (
	// metricName is Prometheus's form of a metric name; a recording rule's
	// name may use colons.
	metricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelName  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
	// promDuration is Prometheus's duration: units from years to
	// milliseconds, largest first, each at most once.
	promDuration = regexp.MustCompile(`^([0-9]+y)?([0-9]+w)?([0-9]+d)?([0-9]+h)?([0-9]+m)?([0-9]+s)?([0-9]+ms)?$`)
)

// prometheusRule checks what the Prometheus Operator would otherwise accept
// and Prometheus refuse at load time, silently dropping the group: names,
// durations, one of record and alert per rule, an expression in each.
func (r *rules) prometheusRule(pr *PrometheusRule) {
	where := "PrometheusRule " + pr.Name
	if len(pr.Spec.Groups) == 0 {
		r.add("%s: no rule groups", where)
	}
	groups := map[string]bool{}
	for i, g := range pr.Spec.Groups {
		gw := fmt.Sprintf("%s: groups[%d]", where, i)
		if g.Name == "" || groups[g.Name] {
			r.add("%s: the group name %q is empty or repeated", gw, g.Name)
		}
		groups[g.Name] = true
		r.duration(gw+".interval", g.Interval)
		if len(g.Rules) == 0 {
			r.add("%s: no rules", gw)
		}
		for j, rule := range g.Rules {
			r.rule(fmt.Sprintf("%s.rules[%d]", gw, j), rule)
		}
	}
}

func (r *rules) rule(where string, rule Rule) {
	switch {
	case (rule.Record == "") == (rule.Alert == ""):
		r.add("%s: exactly one of record and alert must be set", where)
	case rule.Record != "" && !metricName.MatchString(rule.Record):
		r.add("%s: record %q is not a metric name", where, rule.Record)
	case rule.Record != "" && (rule.For != "" || rule.KeepFiringFor != "" || len(rule.Annotations) > 0):
		r.add("%s: a recording rule takes no for, keep_firing_for or annotations", where)
	}
	if rule.Expr == "" {
		r.add("%s: expr is empty", where)
	}
	r.duration(where+".for", rule.For)
	r.duration(where+".keep_firing_for", rule.KeepFiringFor)
	for name := range rule.Labels {
		if !labelName.MatchString(name) {
			r.add("%s: label %q is not a label name", where, name)
		}
	}
}

func (r *rules) duration(where, d string) {
	if d != "" && (!promDuration.MatchString(d) || d == "0") {
		r.add("%s: %q is not a Prometheus duration", where, d)
	}
}

// ErrRulesDiffer is returned when the rendered PrometheusRule does not hold
// the expected rule file.
var ErrRulesDiffer = errors.New("the PrometheusRule's spec differs from the rule file")

// checkRuleFile compares the spec of every rendered PrometheusRule with the
// rule file at path, decoded alike: the chart must ship exactly the rules
// promtool tested.
func checkRuleFile(objs []Object, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var want RuleFile
	if err := yaml.UnmarshalStrict(data, &want); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	found := 0
	for _, o := range objs {
		pr, ok := o.Value.(*PrometheusRule)
		if !ok {
			continue
		}
		found++
		if !reflect.DeepEqual(pr.Spec, want) {
			return fmt.Errorf("PrometheusRule %s: %w %s", pr.Name, ErrRulesDiffer, path)
		}
	}
	if found != 1 {
		return fmt.Errorf("%w: want one PrometheusRule, found %d", ErrRulesDiffer, found)
	}
	return nil
}
