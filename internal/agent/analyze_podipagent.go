/*
Copyright 2026 The KubAge Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package agent

import (
	"context"
	"fmt"
	"net"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// Node agents (Datadog, the Jaeger and OpenTelemetry agents, StatsD exporters) run as a
// DaemonSet listening on a hostPort, and applications reach the one on their node through
// the downward API: status.hostIP. Given status.podIP instead, the application calls its
// own pod, where nothing listens on the agent's port, and every send is refused. The error
// names an IP and the agent's port; the env variable from status.podIP is the fault.

// agentOnPodIP reports a refused or timed-out call to an IP on a port a DaemonSet of the
// namespace serves as a hostPort, from a container whose env takes an address from
// status.podIP.
func (pc *podCheck) agentOnPodIP(ctx context.Context, d *depCheck) bool {
	if !networkClass(d.clue.Class) {
		return false
	}
	var podIPEnv string
	for _, ev := range d.spec.Env {
		if r := ev.ValueFrom; r != nil && r.FieldRef != nil && r.FieldRef.FieldPath == "status.podIP" {
			podIPEnv = ev.Name
			break
		}
	}
	if podIPEnv == "" {
		return false
	}
	for _, h := range d.clue.Hosts {
		port, err := strconv.Atoi(h.Port)
		if err != nil || net.ParseIP(h.Host) == nil {
			continue
		}
		if podServes(pc.pod, int32(port)) {
			continue // the pod itself listens there: calling it is no mistake
		}
		e := pc.e
		wl := e.workloadOf(ctx, pc.pod)
		agent := fmt.Sprintf("no container of the pod listens on %d", port)
		var extra []ObjectRef
		if ds, c := pc.hostPortServer(ctx, int32(port)); ds != nil {
			dref := e.ref("DaemonSet", ds.Name)
			extra = append(extra, dref)
			agent = fmt.Sprintf("nothing in the pod listens on %d; DaemonSet %s serves it as a hostPort on every node", port, ds.Name)
			d.evIDs = append(d.evIDs, e.objEvidence(dref, fmt.Sprintf("DaemonSet %s container %s listens on hostPort %d", ds.Name, c, port)))
		}
		d.report(ctx, "agent-address-pod-ip", 0, wl, fmt.Sprintf("%s: it calls %s:%d, and env %s of %s %s takes that address from fieldRef status.podIP, the pod's own IP, but %s. A node agent is reached at status.hostIP (the node's address): take %s from there.",
			d.opening(), h.Host, port, podIPEnv, wl.Kind, wl.Name, agent, podIPEnv), nil, extra,
			map[string]string{"key": podIPEnv, "sourceResource": kubectlResource(wl), "port": h.Port})
		return true
	}
	return false
}

// hostPortServer finds the DaemonSet of the namespace whose pods serve port as a hostPort.
func (pc *podCheck) hostPortServer(ctx context.Context, port int32) (*appsv1.DaemonSet, string) {
	dss, err := listOnce[*appsv1.DaemonSet](ctx, pc.e, "DaemonSet", scanMaxObjects)
	if err != nil {
		return nil, ""
	}
	for _, ds := range dss {
		for _, c := range ds.Spec.Template.Spec.Containers {
			for _, p := range c.Ports {
				if p.HostPort == port && p.Protocol != corev1.ProtocolUDP {
					return ds, c.Name
				}
			}
		}
	}
	return nil, ""
}

// podServes reports a container port of the pod equal to port.
func podServes(p *corev1.Pod, port int32) bool {
	for _, c := range p.Spec.Containers {
		for _, cp := range c.Ports {
			if cp.ContainerPort == port {
				return true
			}
		}
	}
	return false
}
