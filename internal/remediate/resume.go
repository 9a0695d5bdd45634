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

package remediate

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// What makes an action safe to execute again after the operator died mid-way: deletions
// are pinned to the UID recorded before the first attempt, and patches carry the action's
// stamp in RemediatedAnnotation, written in the same request as the change.

// successMessage is the result of an op that took effect, the same on every attempt.
func successMessage(op Op) string {
	switch op.Verb {
	case Scale:
		return fmt.Sprintf("Scaled %s/%s to %d replicas", op.Kind, op.Name, op.Replicas)
	case DeletePod:
		return fmt.Sprintf("Deleted Pod %s", op.Name)
	default:
		return fmt.Sprintf("Patched %s/%s", op.Kind, op.Name)
	}
}

// deletePod deletes the Pod, only the pinned one when op.UID is set.
func (x *Executor) deletePod(ctx context.Context, op Op) (string, error) {
	opts := metav1.DeleteOptions{}
	if op.UID != "" {
		opts.Preconditions = &metav1.Preconditions{UID: &op.UID}
	}
	err := x.Client.CoreV1().Pods(op.Namespace).Delete(ctx, op.Name, opts)
	switch {
	case err == nil:
		return successMessage(op), nil
	case op.Resumed && op.UID != "" && (apierrors.IsNotFound(err) || apierrors.IsConflict(err)):
		// The pinned Pod is gone (and maybe replaced): the first attempt deleted it.
		return successMessage(op), nil
	case apierrors.IsNotFound(err):
		return fmt.Sprintf("Pod %s was already gone", op.Name), nil
	case apierrors.IsConflict(err):
		return fmt.Sprintf("Pod %s was replaced since the action was approved; the new Pod was left alone", op.Name), nil
	}
	return "", fmt.Errorf("%s: %w", op, err)
}

// stamped says whether the op's target already carries this action's stamp.
func (x *Executor) stamped(ctx context.Context, op Op, stamp string) (bool, error) {
	meta, err := x.objectMeta(ctx, op)
	if err != nil {
		return false, err
	}
	return meta.Annotations[RemediatedAnnotation] == stamp, nil
}

// objectMeta reads the metadata of the op's target.
func (x *Executor) objectMeta(ctx context.Context, op Op) (metav1.ObjectMeta, error) {
	get := metav1.GetOptions{}
	var err error
	var m metav1.ObjectMeta
	switch op.Kind {
	case "Deployment":
		o, e := x.Client.AppsV1().Deployments(op.Namespace).Get(ctx, op.Name, get)
		if err = e; e == nil {
			m = o.ObjectMeta
		}
	case "StatefulSet":
		o, e := x.Client.AppsV1().StatefulSets(op.Namespace).Get(ctx, op.Name, get)
		if err = e; e == nil {
			m = o.ObjectMeta
		}
	case "DaemonSet":
		o, e := x.Client.AppsV1().DaemonSets(op.Namespace).Get(ctx, op.Name, get)
		if err = e; e == nil {
			m = o.ObjectMeta
		}
	case "ConfigMap":
		o, e := x.Client.CoreV1().ConfigMaps(op.Namespace).Get(ctx, op.Name, get)
		if err = e; e == nil {
			m = o.ObjectMeta
		}
	default:
		err = fmt.Errorf("%w: %s", ErrNotExecutable, op.Kind)
	}
	return m, err
}

// stampPatch returns op's patch with the action's stamp added to the target's annotations.
func (x *Executor) stampPatch(ctx context.Context, op Op, stamp string) ([]byte, error) {
	if op.PatchType == types.JSONPatchType {
		var ops []any
		if err := json.Unmarshal(op.Patch, &ops); err != nil {
			return nil, fmt.Errorf("%w: the JSON patch is not a list of operations", ErrNotExecutable)
		}
		meta, err := x.objectMeta(ctx, op)
		if err != nil {
			return nil, err
		}
		if meta.Annotations == nil {
			ops = append(ops, map[string]any{"op": "add", "path": "/metadata/annotations", "value": map[string]string{RemediatedAnnotation: stamp}})
		} else {
			key := strings.NewReplacer("~", "~0", "/", "~1").Replace(RemediatedAnnotation)
			ops = append(ops, map[string]any{"op": "add", "path": "/metadata/annotations/" + key, "value": stamp})
		}
		return json.Marshal(ops)
	}
	var doc map[string]any
	if err := json.Unmarshal(op.Patch, &doc); err != nil || doc == nil {
		return nil, fmt.Errorf("%w: the patch is not a JSON object", ErrNotExecutable)
	}
	md, _ := doc["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
	}
	ann, _ := md["annotations"].(map[string]any)
	if ann == nil {
		ann = map[string]any{}
	}
	ann[RemediatedAnnotation] = stamp
	md["annotations"], doc["metadata"] = ann, md
	return json.Marshal(doc)
}
