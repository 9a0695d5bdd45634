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

package tools

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/kubage/kubage/internal/text"
	corev1 "k8s.io/api/core/v1"
)

// Log caps: defaults and hard limits for tail lines and bytes read from the API.
const (
	DefaultLogLines = 50
	MaxLogLines     = 500
	DefaultLogBytes = 16 << 10
	MaxLogBytes     = 64 << 10
	maxLogLineBytes = 300
	// maxLogStreamBytes is the most read from one log stream; lines are clipped to
	// maxLogLineKeep bytes while reading, so memory stays at lines × maxLogLineKeep.
	maxLogStreamBytes = 8 << 20
	maxLogLineKeep    = 1000
)

// LogsRequest selects a container's log tail.
type LogsRequest struct {
	Pod       string
	Container string
	Previous  bool
	TailLines int
	MaxBytes  int
	// LineBytes, when above the shown width, also fills LogsResult.Full with each line's
	// first LineBytes bytes (at most maxLogLineKeep): a structured record often says its
	// error after the width a person is shown.
	LineBytes int
}

// LogsResult is a bounded, sanitized log tail; Note explains anything missing.
type LogsResult struct {
	Pod       string   `json:"pod"`
	Container string   `json:"container"`
	Previous  bool     `json:"previous"`
	Lines     []string `json:"lines"`
	// Full are the same lines, longer (see LogsRequest.LineBytes); for readers, never shown.
	Full      []string `json:"-"`
	Truncated bool     `json:"truncated,omitempty"`
	Binary    bool     `json:"binary,omitempty"`
	Note      string   `json:"note,omitempty"`
}

// LogSource streams a container's log. The API's pods/log subresource is the default;
// replays and tests supply recorded logs (the fake clientset cannot serve any).
type LogSource func(ctx context.Context, namespace, pod string, opts *corev1.PodLogOptions) (io.ReadCloser, error)

// SetLogSource replaces where logs are read from (nil restores the API).
func (c *Client) SetLogSource(s LogSource) { c.logs = s }

func (c *Client) streamLogs(ctx context.Context, pod string, opts *corev1.PodLogOptions) (io.ReadCloser, error) {
	if c.logs != nil {
		return c.logs(ctx, c.scope.Namespace, pod, opts)
	}
	return c.cs.CoreV1().Pods(c.scope.Namespace).GetLogs(pod, opts).Stream(ctx)
}

// Logs fetches a container's log tail. Problems that only mean "no logs" (container never
// started, no previous instance, kubelet unreachable) come back as a Note, not an error.
func (c *Client) Logs(ctx context.Context, req LogsRequest) (LogsResult, error) {
	res := LogsResult{Pod: req.Pod, Container: req.Container, Previous: req.Previous}
	pod, err := GetAs[*corev1.Pod](ctx, c, "Pod", req.Pod)
	if err != nil {
		return res, err
	}
	if res.Container == "" {
		res.Container = pickContainer(pod)
	}
	cs, known := containerStatus(pod, res.Container)
	if !known && !hasContainer(pod, res.Container) {
		return res, fmt.Errorf("%w: pod %s has no container %q (containers: %s)", ErrInvalidInput, pod.Name, text.ClipMarked(res.Container, 63), strings.Join(containerNames(pod), ", "))
	}
	if req.Previous && (cs == nil || cs.LastTerminationState.Terminated == nil) {
		res.Note = fmt.Sprintf("no previous instance of container %s (it has not restarted)", res.Container)
		return res, nil
	}
	if !req.Previous && cs != nil && cs.State.Waiting != nil && cs.LastTerminationState.Terminated == nil {
		res.Note = fmt.Sprintf("container %s has not started yet (%s): no logs", res.Container, cs.State.Waiting.Reason)
		return res, nil
	}
	if !req.Previous && cs != nil && cs.State.Waiting != nil && cs.LastTerminationState.Terminated != nil {
		// A crash-looping container's current instance is empty; its last run has the story.
		req.Previous, res.Previous = true, true
		res.Note = "current instance is waiting to restart; showing the previous instance"
	}
	lines := clampInt(req.TailLines, DefaultLogLines, MaxLogLines)
	maxBytes := clampInt(req.MaxBytes, DefaultLogBytes, MaxLogBytes)
	// The API cuts LimitBytes from the start of the tail, so one huge line would hide the
	// lines after it: read much more, but keep only the head of each line while streaming.
	readBytes := int64(maxLogStreamBytes)
	tail := int64(lines)
	c.count()
	stream, err := c.streamLogs(ctx, pod.Name, &corev1.PodLogOptions{
		Container: res.Container, Previous: req.Previous, TailLines: &tail, LimitBytes: &readBytes,
	})
	if err != nil {
		res.Note = joinNote(res.Note, "logs unavailable: "+Sanitize(err.Error(), 300, true))
		return res, nil
	}
	defer stream.Close()
	kept, cut, err := readLineHeads(io.LimitReader(stream, readBytes), lines, maxLogLineKeep)
	if err != nil {
		res.Note = joinNote(res.Note, "log stream broke: "+Sanitize(err.Error(), 200, true))
	}
	res.Truncated = cut
	// Keep the newest lines that fit in maxBytes.
	total, first := 0, len(kept)
	for first > 0 && total+len(kept[first-1])+1 <= maxBytes {
		first--
		total += len(kept[first]) + 1
	}
	if first > 0 {
		res.Truncated = true
	}
	kept = kept[first:]
	res.Binary = looksBinary(bytes.Join(kept, []byte("\n")))
	if res.Binary {
		res.Note = joinNote(res.Note, "output looks binary; non-printable bytes replaced with '.'")
	}
	for _, l := range kept {
		res.Lines = append(res.Lines, Sanitize(string(l), maxLogLineBytes, true))
	}
	if lb := min(req.LineBytes, maxLogLineKeep); lb > maxLogLineBytes {
		for _, l := range kept {
			res.Full = append(res.Full, Sanitize(string(l), lb, true))
		}
	}
	if len(res.Lines) == 0 {
		res.Note = joinNote(res.Note, "the container wrote no log output")
	}
	return res, nil
}

// readLineHeads reads r line by line, keeping the first keep bytes of each of the last n
// lines; cut says whether a line was clipped or older lines were dropped.
func readLineHeads(r io.Reader, n, keep int) ([][]byte, bool, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var out [][]byte
	cut := false
	var cur []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(cur) < keep {
			take := min(len(frag), keep-len(cur))
			cur = append(cur, frag[:take]...)
			if take < len(frag) && !(take == len(frag)-1 && frag[len(frag)-1] == '\n') {
				cut = true
			}
		} else if len(frag) > 1 || (len(frag) == 1 && frag[0] != '\n') {
			cut = true
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(frag) > 0 && frag[len(frag)-1] == '\n' || (err != nil && len(cur) > 0) {
			out = append(out, bytes.TrimRight(cur, "\r\n"))
			cur = nil
			if len(out) > n {
				out = out[1:]
				cut = true
			}
		}
		if err == io.EOF {
			return out, cut, nil
		}
		if err != nil {
			return out, cut, err
		}
	}
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func clampInt(v, def, max int) int {
	if v <= 0 {
		return def
	}
	if v > max {
		return max
	}
	return v
}

func looksBinary(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	bad := 0
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if (r == utf8.RuneError && size <= 1) || (r < 0x20 && r != '\n' && r != '\r' && r != '\t') {
			bad++
		}
		i += size
	}
	return bad*10 > len(b) // more than 10% junk
}

// pickContainer chooses the most interesting container: the first one in trouble, else the first.
func pickContainer(p *corev1.Pod) string {
	for _, cs := range append(append([]corev1.ContainerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
		if ContainerProblem(cs) != "" || cs.RestartCount > 0 {
			return cs.Name
		}
	}
	if len(p.Spec.Containers) > 0 {
		return p.Spec.Containers[0].Name
	}
	return ""
}

func containerStatus(p *corev1.Pod, name string) (*corev1.ContainerStatus, bool) {
	for _, l := range [][]corev1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
		for i := range l {
			if l[i].Name == name {
				return &l[i], true
			}
		}
	}
	return nil, false
}

func hasContainer(p *corev1.Pod, name string) bool {
	for _, n := range containerNames(p) {
		if n == name {
			return true
		}
	}
	return false
}

func containerNames(p *corev1.Pod) []string {
	var out []string
	for _, c := range p.Spec.InitContainers {
		out = append(out, c.Name)
	}
	for _, c := range p.Spec.Containers {
		out = append(out, c.Name)
	}
	return out
}
