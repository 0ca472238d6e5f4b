package main

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// apiPortName is the container port every way in (Ingress, HTTPRoute) must
// lead to; the other one, admin, serves /metrics, /healthz and /readyz
// without authentication and must stay inside the cluster.
const apiPortName = "api"

// ingress checks every backend of an Ingress: a Service of the render, on
// a port leading to the API.
func (r *rules) ingress(ing *networkingv1.Ingress, services map[string]*corev1.Service, d *appsv1.Deployment) {
	where := "Ingress " + ing.Name
	if b := ing.Spec.DefaultBackend; b != nil {
		r.ingressBackend(where+" defaultBackend", *b, services, d)
	}
	for _, rule := range ing.Spec.Rules {
		if rule.HTTP == nil {
			continue
		}
		for _, p := range rule.HTTP.Paths {
			r.ingressBackend(fmt.Sprintf("%s host %q path %q", where, rule.Host, p.Path), p.Backend, services, d)
		}
	}
}

func (r *rules) ingressBackend(where string, b networkingv1.IngressBackend, services map[string]*corev1.Service, d *appsv1.Deployment) {
	if b.Service == nil {
		r.add("%s: backend is not a Service", where)
		return
	}
	r.backend(where, b.Service.Name, b.Service.Port.Name, b.Service.Port.Number, services, d)
}

// httpRoute checks every backend of an HTTPRoute, mirrors included: a
// Service of the render, in the route's namespace, on a port leading to
// the API.
func (r *rules) httpRoute(rt *gatewayv1.HTTPRoute, services map[string]*corev1.Service, d *appsv1.Deployment) {
	where := "HTTPRoute " + rt.Name
	for i, rule := range rt.Spec.Rules {
		at := fmt.Sprintf("%s rule %d", where, i)
		r.mirrors(at, rule.Filters, services, d)
		for _, ref := range rule.BackendRefs {
			r.backendRef(at+" backendRef", ref.BackendObjectReference, services, d)
			r.mirrors(at+" backendRef", ref.Filters, services, d)
		}
	}
}

func (r *rules) mirrors(where string, filters []gatewayv1.HTTPRouteFilter, services map[string]*corev1.Service, d *appsv1.Deployment) {
	for _, f := range filters {
		if f.RequestMirror != nil {
			r.backendRef(where+" requestMirror", f.RequestMirror.BackendRef, services, d)
		}
	}
}

func (r *rules) backendRef(where string, ref gatewayv1.BackendObjectReference, services map[string]*corev1.Service, d *appsv1.Deployment) {
	if (ref.Group != nil && *ref.Group != "") || (ref.Kind != nil && *ref.Kind != "Service") {
		r.add("%s: backend %s is not a Service", where, ref.Name)
		return
	}
	if ref.Namespace != nil {
		r.add("%s: backend %s names namespace %s; the chart's Service is in the route's own", where, ref.Name, *ref.Namespace)
		return
	}
	if ref.Port == nil {
		r.add("%s: backend %s has no port", where, ref.Name)
		return
	}
	r.backend(where, string(ref.Name), "", int32(*ref.Port), services, d)
}

// backend checks that Service svcName, port portName (or number), is in
// the render and leads to the Deployment's container port named api.
func (r *rules) backend(where, svcName, portName string, portNumber int32, services map[string]*corev1.Service, d *appsv1.Deployment) {
	svc, ok := services[svcName]
	if !ok {
		r.add("%s: leads to Service %q, which is not rendered", where, svcName)
		return
	}
	for _, p := range svc.Spec.Ports {
		if (portName != "" && p.Name == portName) || (portName == "" && p.Port == portNumber) {
			target := p.TargetPort
			if target.Type == intstr.Int && target.IntVal == 0 {
				target = intstr.FromInt32(p.Port) // targetPort defaults to port
			}
			switch name := containerPortName(d, target); name {
			case apiPortName:
			case "admin":
				r.add("%s: leads to the admin listener (Service %s port %s): /metrics, /healthz and /readyz must not be exposed", where, svcName, p.Name)
			default:
				r.add("%s: leads to container port %q of Service %s, not the API (%s)", where, name, svcName, apiPortName)
			}
			return
		}
	}
	port := portName
	if port == "" {
		port = fmt.Sprint(portNumber)
	}
	r.add("%s: Service %s has no port %s", where, svcName, port)
}

// containerPortName is the name of the Deployment's container port a
// Service's targetPort selects, "" when none.
func containerPortName(d *appsv1.Deployment, target intstr.IntOrString) string {
	for _, c := range d.Spec.Template.Spec.Containers {
		for _, p := range c.Ports {
			if (target.Type == intstr.String && p.Name == target.StrVal) || (target.Type == intstr.Int && p.ContainerPort == target.IntVal) {
				return p.Name
			}
		}
	}
	return ""
}
