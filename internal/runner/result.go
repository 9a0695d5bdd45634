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

package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"

	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/redact"
	"github.com/kubage/kubage/internal/text"
)

// ErrMalformedResult marks a result ConfigMap whose content is not a TaskResult; the
// task counts as Failed.
var ErrMalformedResult = errors.New("malformed task result")

// ErrNotManaged marks an object in the way that KubAge did not create.
var ErrNotManaged = errors.New("name taken")

// maxListedResults bounds the results read back for one session (32 tasks per plan,
// 20 iterations).
const maxListedResults = 1000

// WriteResult stores res as the result ConfigMap of res.TaskID, creating it or replacing
// a previous one. A result larger than MaxResultBytes is trimmed (raw data first, then
// evidence and findings) and says so in its summary.
func WriteResult(ctx context.Context, cs kubernetes.Interface, owner Owner, res agent.TaskResult) error {
	_, err := writeResult(ctx, cs, owner, res)
	return err
}

// writeResult is WriteResult that also returns the result as stored, as ReadResult would
// return it.
func writeResult(ctx context.Context, cs kubernetes.Interface, owner Owner, res agent.TaskResult) (*agent.TaskResult, error) {
	if err := owner.Validate(); err != nil {
		return nil, err
	}
	if errs := validation.IsDNS1123Label(res.TaskID); len(errs) > 0 {
		return nil, fmt.Errorf("task id %q: %v", res.TaskID, errs)
	}
	// Results hold log lines and messages: credentials go before the ConfigMap is written.
	if err := redact.Default().RedactJSONInto(&res); err != nil {
		return nil, fmt.Errorf("redacting result of task %s: %w", res.TaskID, err)
	}
	raw, err := boundResult(res)
	if err != nil {
		return nil, err
	}
	lbls := owner.Labels()
	lbls[LabelTaskID] = res.TaskID
	lbls[LabelComponent] = ComponentTaskResult
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name:            ResultName(owner, res.TaskID),
			Namespace:       owner.Namespace,
			Labels:          lbls,
			OwnerReferences: []metav1.OwnerReference{owner.Reference()},
		},
		Data: map[string]string{ResultKey: string(raw)},
	}
	cms := cs.CoreV1().ConfigMaps(owner.Namespace)
	_, err = cms.Create(ctx, cm, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		if err != nil {
			return nil, fmt.Errorf("writing result of task %s of %s: %w", res.TaskID, owner, err)
		}
		return decodeResult(cm)
	}
	// A result of another run (or of a deleted namesake) is replaced; ours is rewritten,
	// which is harmless because results are deterministic.
	old, err := cms.Get(ctx, cm.Name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading previous result of task %s of %s: %w", res.TaskID, owner, err)
	}
	if err := CheckManaged(old, ComponentTaskResult); err != nil {
		return nil, err
	}
	old.Labels, old.OwnerReferences, old.Data, old.BinaryData = cm.Labels, cm.OwnerReferences, cm.Data, nil
	if _, err := cms.Update(ctx, old, metav1.UpdateOptions{}); err != nil {
		return nil, fmt.Errorf("replacing result of task %s of %s: %w", res.TaskID, owner, err)
	}
	return decodeResult(cm)
}

// CheckManaged refuses to overwrite a ConfigMap that KubAge did not create for this
// purpose, so that a user's ConfigMap that happens to have a derived name is never clobbered.
func CheckManaged(cm *corev1.ConfigMap, component string) error {
	if cm.Labels[LabelManagedBy] != "kubage" || cm.Labels[LabelComponent] != component {
		return fmt.Errorf("%w: ConfigMap %s/%s exists and is not a KubAge %s; rename or delete it", ErrNotManaged, cm.Namespace, cm.Name, component)
	}
	return nil
}

// ReadResult returns the result of one task, nil when there is none for this run of the
// owner, or an error wrapping ErrMalformedResult when the ConfigMap holds no TaskResult.
func ReadResult(ctx context.Context, cs kubernetes.Interface, owner Owner, taskID string) (*agent.TaskResult, error) {
	cm, err := cs.CoreV1().ConfigMaps(owner.Namespace).Get(ctx, ResultName(owner, taskID), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading result of task %s of %s: %w", taskID, owner, err)
	}
	if !isResultOf(cm, owner) || cm.Labels[LabelTaskID] != taskID {
		return nil, nil
	}
	return decodeResult(cm)
}

// ReadResults returns every well-formed result of this run of the owner, keyed by task id.
func ReadResults(ctx context.Context, cs kubernetes.Interface, owner Owner) (map[string]agent.TaskResult, error) {
	list, err := cs.CoreV1().ConfigMaps(owner.Namespace).List(ctx, metav1.ListOptions{
		LabelSelector: resultSelector(owner.Name),
		Limit:         maxListedResults,
	})
	if err != nil {
		return nil, fmt.Errorf("listing results of %s: %w", owner, err)
	}
	out := make(map[string]agent.TaskResult, len(list.Items))
	for i := range list.Items {
		cm := &list.Items[i]
		if !isResultOf(cm, owner) {
			continue
		}
		res, err := decodeResult(cm)
		if err != nil {
			continue
		}
		out[res.TaskID] = *res
	}
	return out, nil
}

// DeleteResults deletes every result ConfigMap of the owner, of all its runs. It lists
// and deletes one by one, which needs only the delete verb (not deletecollection).
func DeleteResults(ctx context.Context, cs kubernetes.Interface, owner Owner) error {
	cms := cs.CoreV1().ConfigMaps(owner.Namespace)
	list, err := cms.List(ctx, metav1.ListOptions{LabelSelector: resultSelector(owner.Name), Limit: maxListedResults})
	if err != nil {
		return fmt.Errorf("listing results of %s: %w", owner, err)
	}
	for i := range list.Items {
		cm := &list.Items[i]
		if owner.UID != "" && !owner.Owns(cm.OwnerReferences) {
			continue
		}
		if err := cms.Delete(ctx, cm.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting result %s of %s: %w", cm.Name, owner, err)
		}
	}
	return nil
}

// resultSelector selects the result ConfigMaps of a Troubleshoot name.
func resultSelector(name string) string {
	own, _ := labels.NewRequirement(LabelTroubleshoot, selection.Equals, []string{LabelValue(name)})
	comp, _ := labels.NewRequirement(LabelComponent, selection.Equals, []string{ComponentTaskResult})
	return labels.NewSelector().Add(*own, *comp).String()
}

func isResultOf(cm *corev1.ConfigMap, owner Owner) bool {
	return owner.Owns(cm.OwnerReferences) && cm.Labels[LabelRun] == owner.Run &&
		cm.Labels[LabelComponent] == ComponentTaskResult
}

func decodeResult(cm *corev1.ConfigMap) (*agent.TaskResult, error) {
	raw, ok := cm.Data[ResultKey]
	if !ok {
		return nil, fmt.Errorf("%w: ConfigMap %s has no %s", ErrMalformedResult, cm.Name, ResultKey)
	}
	if len(raw) > MaxResultBytes {
		return nil, fmt.Errorf("%w: ConfigMap %s holds %d bytes, more than %d", ErrMalformedResult, cm.Name, len(raw), MaxResultBytes)
	}
	var res agent.TaskResult
	// Redacted again on the way in: a result written by another agent version is not trusted.
	if err := json.Unmarshal(redact.Default().SecretsJSON([]byte(raw)), &res); err != nil {
		return nil, fmt.Errorf("%w: ConfigMap %s: %v", ErrMalformedResult, cm.Name, err)
	}
	if want := cm.Labels[LabelTaskID]; res.TaskID != want {
		return nil, fmt.Errorf("%w: ConfigMap %s holds task %q, labelled %q", ErrMalformedResult, cm.Name, res.TaskID, want)
	}
	return &res, nil
}

// boundResult marshals res within MaxResultBytes, dropping the least useful parts first.
func boundResult(res agent.TaskResult) ([]byte, error) {
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("encoding result of task %s: %w", res.TaskID, err)
	}
	if len(raw) <= MaxResultBytes {
		return raw, nil
	}
	res.Evidence = append([]agent.Evidence(nil), res.Evidence...)
	res.Findings = append([]agent.Finding(nil), res.Findings...)
	trims := []func(){
		func() {
			for i := range res.Evidence {
				res.Evidence[i].Data = ""
			}
		},
		func() { res.ToolCalls = nil },
		func() { res.Examined, res.FollowUps = nil, nil },
	}
	// Then keep halving evidence and findings, ranked by confidence, until it fits.
	sort.SliceStable(res.Findings, func(i, j int) bool { return res.Findings[i].Confidence > res.Findings[j].Confidence })
	for i := 0; i < 40; i++ {
		if i < len(trims) {
			trims[i]()
		} else {
			if len(res.Evidence) == 0 && len(res.Findings) == 0 {
				break
			}
			res.Evidence = res.Evidence[:len(res.Evidence)/2]
			res.Findings = res.Findings[:len(res.Findings)/2]
		}
		res.Summary = text.Clip(res.Summary, 1024)
		if raw, err = json.Marshal(withNote(res)); err == nil && len(raw) <= MaxResultBytes {
			return raw, nil
		}
	}
	return nil, fmt.Errorf("result of task %s does not fit in %d bytes", res.TaskID, MaxResultBytes)
}

func withNote(res agent.TaskResult) agent.TaskResult {
	res.Summary = text.Clip(res.Summary, 900) + " (result trimmed to fit its ConfigMap)"
	return res
}
