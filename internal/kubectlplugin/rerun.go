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

package kubectlplugin

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// RerunAnnotation restarts a finished session when set to a value it has not had before. It
// is the operator's contract (internal/session.RerunAnnotation; a test keeps the two equal),
// repeated here so that the plugin does not link the operator's session machine.
const RerunAnnotation = "kubage.io/rerun"

// RerunPatch is the merge patch that sets RerunAnnotation to value.
func RerunPatch(value string) ([]byte, error) {
	return json.Marshal(map[string]any{
		"metadata": map[string]any{"annotations": map[string]string{RerunAnnotation: value}},
	})
}

// Rerun asks the operator to investigate the Troubleshoot name again.
func (e *Env) Rerun(ctx context.Context, name string) error {
	// A timestamp to the nanosecond is a value the annotation has not had before.
	value := e.Now().UTC().Format(time.RFC3339Nano)
	patch, err := RerunPatch(value)
	if err != nil {
		return err
	}
	_, err = e.Dynamic.Resource(TroubleshootResource).Namespace(e.Namespace).
		Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: FieldManager})
	if err != nil {
		return e.explain(err, "patch", TroubleshootResource, e.Namespace, name)
	}
	fmt.Fprintf(e.Out, "troubleshoot.kubage.io/%s: rerun requested (%s=%s)\n", name, RerunAnnotation, value)
	return nil
}
