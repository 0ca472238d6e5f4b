package main

import (
	"errors"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// ErrRule is wrapped by every broken deployment rule.
var ErrRule = errors.New("rule broken")

// credentialEnv names the environment variables that carry credentials:
// they must come from a Secret, never from a literal value in a manifest.
func credentialEnv() []string {
	return []string{"GATEWAY_JWT_SECRET", "WORKFLOW_USER", "WORKFLOW_PASSWORD", "DATA_ACCESS_TOKEN", "DATA_GATEWAY_KEY",
		"GATEWAY_REDIS_URL", "GATEWAY_REDIS_SENTINEL_PASSWORD", "DATA_CLIENT_SECRET", "DATA_REFRESH_TOKEN", "GATEWAY_ADMIN_TOKEN"}
}

// minGracePeriod is the config's drain (server.timeouts.shutdown, 20s) plus
// the call log flush (5s) plus margin.
const minGracePeriod = 30

// CheckRules applies the gateway's deployment rules across the decoded
// objects: exactly one Deployment, hardened and probed; credentials only
// through secretKeyRef; the config mounted as a directory; every Service,
// PodDisruptionBudget, HorizontalPodAutoscaler and ServiceMonitor pointing
// at that Deployment's pods and ports; every Ingress and HTTPRoute backend
// leading to the API port, never the admin listener; every PrometheusRule
// loadable by Prometheus.
func CheckRules(objs []Object) error {
	var r rules
	var deps []*appsv1.Deployment
	for _, o := range objs {
		if d, ok := o.Value.(*appsv1.Deployment); ok {
			deps = append(deps, d)
		}
	}
	if len(deps) != 1 {
		r.add("want exactly one Deployment, found %d", len(deps))
		return r.err()
	}
	d := deps[0]
	r.deployment(d)
	pod := labels.Set(d.Spec.Template.Labels)
	services := map[string]*corev1.Service{}
	for _, o := range objs {
		switch v := o.Value.(type) {
		case *corev1.Service:
			services[v.Name] = v
			if !labels.SelectorFromSet(v.Spec.Selector).Matches(pod) || len(v.Spec.Selector) == 0 {
				r.add("Service %s: selector does not select the Deployment's pods", v.Name)
			}
			for _, p := range v.Spec.Ports {
				if p.TargetPort.StrVal != "" && !hasContainerPort(d, p.TargetPort.StrVal) {
					r.add("Service %s: targetPort %q is no container port", v.Name, p.TargetPort.StrVal)
				}
			}
		case *policyv1.PodDisruptionBudget:
			r.selects("PodDisruptionBudget "+v.Name, v.Spec.Selector, pod)
		case *autoscalingv2.HorizontalPodAutoscaler:
			ref := v.Spec.ScaleTargetRef
			if ref.Kind != "Deployment" || ref.Name != d.Name {
				r.add("HorizontalPodAutoscaler %s: scales %s/%s, not Deployment/%s", v.Name, ref.Kind, ref.Name, d.Name)
			}
			if d.Spec.Replicas != nil {
				r.add("HorizontalPodAutoscaler %s: the Deployment must not set replicas (each upgrade would reset the scale)", v.Name)
			}
		}
	}
	for _, o := range objs {
		switch v := o.Value.(type) {
		case *ServiceMonitor:
			r.serviceMonitor(v, services)
		case *PrometheusRule:
			r.prometheusRule(v)
		case *networkingv1.Ingress:
			r.ingress(v, services, d)
		case *gatewayv1.HTTPRoute:
			r.httpRoute(v, services, d)
		}
	}
	return r.err()
}

type rules struct{ errs []error }

func (r *rules) add(format string, args ...any) {
	r.errs = append(r.errs, fmt.Errorf("%w: %s", ErrRule, fmt.Sprintf(format, args...)))
}

func (r *rules) err() error { return errors.Join(r.errs...) }

func (r *rules) selects(what string, sel *metav1.LabelSelector, pod labels.Set) {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if sel == nil || err != nil || s.Empty() || !s.Matches(pod) {
		r.add("%s: selector does not select the Deployment's pods", what)
	}
}

func (r *rules) serviceMonitor(sm *ServiceMonitor, services map[string]*corev1.Service) {
	s, err := metav1.LabelSelectorAsSelector(&sm.Spec.Selector)
	if err != nil || s.Empty() {
		r.add("ServiceMonitor %s: empty or invalid selector", sm.Name)
		return
	}
	for _, ep := range sm.Spec.Endpoints {
		found := false
		for _, svc := range services {
			if !s.Matches(labels.Set(svc.Labels)) {
				continue
			}
			for _, p := range svc.Spec.Ports {
				found = found || p.Name == ep.Port
			}
		}
		if !found {
			r.add("ServiceMonitor %s: no selected Service has a port named %q", sm.Name, ep.Port)
		}
	}
}

func hasContainerPort(d *appsv1.Deployment, name string) bool {
	for _, c := range d.Spec.Template.Spec.Containers {
		for _, p := range c.Ports {
			if p.Name == name {
				return true
			}
		}
	}
	return false
}

func (r *rules) deployment(d *appsv1.Deployment) {
	spec := d.Spec.Template.Spec
	where := "Deployment " + d.Name
	if psc := spec.SecurityContext; psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
		r.add("%s: pod securityContext.runAsNonRoot must be true", where)
	}
	if psc := spec.SecurityContext; psc == nil || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		r.add("%s: pod seccompProfile must be RuntimeDefault", where)
	}
	if g := spec.TerminationGracePeriodSeconds; g == nil || *g < minGracePeriod {
		r.add("%s: terminationGracePeriodSeconds must be at least %d (the drain and the log flush)", where, minGracePeriod)
	}
	configVolumes := map[string]bool{}
	for _, v := range spec.Volumes {
		if v.ConfigMap != nil {
			configVolumes[v.Name] = true
		}
	}
	for _, c := range spec.Containers {
		r.container(where+" container "+c.Name, c, configVolumes)
	}
}

func (r *rules) container(where string, c corev1.Container, configVolumes map[string]bool) {
	sc := c.SecurityContext
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		r.add("%s: readOnlyRootFilesystem must be true", where)
	}
	if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		r.add("%s: allowPrivilegeEscalation must be false", where)
	}
	if sc == nil || sc.Capabilities == nil || !dropsAll(sc.Capabilities.Drop) {
		r.add("%s: capabilities must drop ALL", where)
	}
	if c.LivenessProbe == nil || c.LivenessProbe.HTTPGet == nil || c.LivenessProbe.HTTPGet.Path != "/healthz" {
		r.add("%s: livenessProbe must GET /healthz", where)
	}
	if c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
		r.add("%s: readinessProbe must GET /readyz", where)
	}
	if _, ok := c.Resources.Requests[corev1.ResourceCPU]; !ok {
		r.add("%s: resources.requests.cpu is required (the HPA measures utilisation against it)", where)
	}
	if _, ok := c.Resources.Limits[corev1.ResourceMemory]; !ok {
		r.add("%s: resources.limits.memory is required", where)
	}
	for _, m := range c.VolumeMounts {
		if configVolumes[m.Name] && m.SubPath != "" {
			r.add("%s: ConfigMap volume %q is mounted with subPath, so updates never reach the pod", where, m.Name)
		}
	}
	for _, e := range c.Env {
		for _, name := range credentialEnv() {
			if e.Name == name && (e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil) {
				r.add("%s: %s must come from a secretKeyRef", where, name)
			}
		}
	}
}

func dropsAll(caps []corev1.Capability) bool {
	for _, c := range caps {
		if strings.EqualFold(string(c), "ALL") {
			return true
		}
	}
	return false
}
