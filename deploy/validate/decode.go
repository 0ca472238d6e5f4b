package main

import (
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"
)

// ErrUnknownKind is returned (wrapped in a *DocumentError) for a document
// whose apiVersion and kind the validator does not know: an unknown kind is
// a typo or a resource nobody reviewed.
var ErrUnknownKind = errors.New("unknown apiVersion/kind")

// DocumentError is a problem with one document.
type DocumentError struct {
	Source string
	Err    error
}

func (e *DocumentError) Error() string { return e.Source + ": " + e.Err.Error() }

// Unwrap returns the underlying problem (ErrUnknownKind or a decoding error).
func (e *DocumentError) Unwrap() error { return e.Err }

// Object is one decoded document.
type Object struct {
	Source string
	Kind   string // apiVersion/kind, e.g. "apps/v1/Deployment"
	Name   string
	// Value is a pointer to the typed object (*appsv1.Deployment, ...).
	Value any
}

// ServiceMonitor is the part of the Prometheus Operator's CRD the chart
// renders; fields beyond it are refused like any unknown field.
type ServiceMonitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              ServiceMonitorSpec `json:"spec"`
}

// ServiceMonitorSpec selects the Services to scrape and how.
type ServiceMonitorSpec struct {
	Selector  metav1.LabelSelector `json:"selector"`
	Endpoints []ScrapeEndpoint     `json:"endpoints"`
}

// ScrapeEndpoint is one scraped Service port.
type ScrapeEndpoint struct {
	Port          string `json:"port"`
	Path          string `json:"path,omitempty"`
	Scheme        string `json:"scheme,omitempty"`
	Interval      string `json:"interval,omitempty"`
	ScrapeTimeout string `json:"scrapeTimeout,omitempty"`
}

// knownKinds maps apiVersion/kind to a constructor of its typed object.
func knownKinds() map[string]func() any {
	return map[string]func() any{
		"apps/v1/Deployment":                      func() any { return &appsv1.Deployment{} },
		"v1/Service":                              func() any { return &corev1.Service{} },
		"v1/ConfigMap":                            func() any { return &corev1.ConfigMap{} },
		"v1/ServiceAccount":                       func() any { return &corev1.ServiceAccount{} },
		"autoscaling/v2/HorizontalPodAutoscaler":  func() any { return &autoscalingv2.HorizontalPodAutoscaler{} },
		"policy/v1/PodDisruptionBudget":           func() any { return &policyv1.PodDisruptionBudget{} },
		"networking.k8s.io/v1/NetworkPolicy":      func() any { return &networkingv1.NetworkPolicy{} },
		"networking.k8s.io/v1/Ingress":            func() any { return &networkingv1.Ingress{} },
		"gateway.networking.k8s.io/v1/HTTPRoute":  func() any { return &gatewayv1.HTTPRoute{} },
		"monitoring.coreos.com/v1/ServiceMonitor": func() any { return &ServiceMonitor{} },
		"monitoring.coreos.com/v1/PrometheusRule": func() any { return &PrometheusRule{} },
	}
}

// Decode splits stream into documents and decodes each strictly (unknown
// fields, duplicate keys and wrong types are errors) into its API type. It
// returns the objects that decoded and every problem joined.
func Decode(stream []byte) ([]Object, error) {
	kinds := knownKinds()
	var objs []Object
	var errs []error
	for _, doc := range Split(stream) {
		obj, err := decodeOne(kinds, doc)
		if err != nil {
			errs = append(errs, &DocumentError{Source: doc.Source, Err: err})
			continue
		}
		objs = append(objs, obj)
	}
	return objs, errors.Join(errs...)
}

func decodeOne(kinds map[string]func() any, doc Document) (Object, error) {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc.Body, &tm); err != nil {
		return Object{}, fmt.Errorf("not a Kubernetes object: %w", err)
	}
	kind := tm.APIVersion + "/" + tm.Kind
	newObj, ok := kinds[kind]
	if !ok {
		return Object{}, fmt.Errorf("%w %q", ErrUnknownKind, kind)
	}
	v := newObj()
	if err := yaml.UnmarshalStrict(doc.Body, v); err != nil {
		return Object{}, fmt.Errorf("%s: %w", kind, err)
	}
	meta, ok := v.(metav1.Object)
	if !ok {
		return Object{}, fmt.Errorf("%s: no metadata", kind)
	}
	if meta.GetName() == "" {
		return Object{}, fmt.Errorf("%s: metadata.name is empty", kind)
	}
	return Object{Source: doc.Source, Kind: kind, Name: meta.GetName(), Value: v}, nil
}
