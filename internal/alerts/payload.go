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

package alerts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/kubage/kubage/internal/text"
)

// Bounds on one payload. Alertmanager sends at most a few hundred alerts per group in
// practice; its webhook_config max_alerts caps them on the sender side.
const (
	// DefaultMaxAlerts is how many alerts one payload may carry.
	DefaultMaxAlerts = 1000
	// MaxLabels is how many labels (and, separately, annotations) one alert may carry.
	MaxLabels = 64
	// MaxLabelNameBytes bounds a label or annotation name.
	MaxLabelNameBytes = 256
	// MaxLabelValueBytes bounds a label value.
	MaxLabelValueBytes = 1024
	// MaxAnnotationValueBytes bounds an annotation value; longer text is truncated in hints.
	MaxAnnotationValueBytes = 64 << 10
	// MaxFingerprintLen bounds a fingerprint; Alertmanager's are 16 hex digits.
	MaxFingerprintLen = 63
	// maxStringBytes bounds the payload-level strings (receiver, groupKey, URLs).
	maxStringBytes = 4096
)

// Alert statuses of the webhook payload.
const (
	StatusFiring   = "firing"
	StatusResolved = "resolved"
)

// Payload is an Alertmanager webhook payload, version 4.
type Payload struct {
	Version           string            `json:"version"`
	GroupKey          string            `json:"groupKey,omitempty"`
	TruncatedAlerts   int               `json:"truncatedAlerts,omitempty"`
	Status            string            `json:"status"`
	Receiver          string            `json:"receiver"`
	GroupLabels       map[string]string `json:"groupLabels,omitempty"`
	CommonLabels      map[string]string `json:"commonLabels,omitempty"`
	CommonAnnotations map[string]string `json:"commonAnnotations,omitempty"`
	ExternalURL       string            `json:"externalURL,omitempty"`
	Alerts            []Alert           `json:"alerts"`
}

// Alert is one alert of a payload.
type Alert struct {
	Status       string            `json:"status"`
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations,omitempty"`
	StartsAt     time.Time         `json:"startsAt"`
	EndsAt       time.Time         `json:"endsAt,omitzero"`
	GeneratorURL string            `json:"generatorURL,omitempty"`
	Fingerprint  string            `json:"fingerprint"`
}

// Name returns the alert's alertname label.
func (a *Alert) Name() string { return a.Labels["alertname"] }

// Reasons are short machine-readable words in error bodies and metric labels. They form a
// closed set so that metric cardinality stays bounded.
const (
	ReasonMalformedJSON      = "MalformedJSON"
	ReasonUnsupportedVersion = "UnsupportedVersion"
	ReasonMissingField       = "MissingField"
	ReasonInvalidField       = "InvalidField"
	ReasonTooManyAlerts      = "TooManyAlerts"
	ReasonBodyTooLarge       = "BodyTooLarge"
	ReasonUnauthorized       = "Unauthorized"
	ReasonRateLimited        = "RateLimited"
	ReasonMethodNotAllowed   = "MethodNotAllowed"
	ReasonUnsupportedMedia   = "UnsupportedMediaType"
	ReasonNotFound           = "NotFound"
	ReasonBusy               = "Busy"
	ReasonUnavailable        = "Unavailable"
	ReasonAllRejected        = "AllAlertsRejected"

	// Per-alert rejections.
	ReasonNoNamespace          = "NoNamespace"
	ReasonInvalidNamespace     = "InvalidNamespace"
	ReasonNamespaceNotFound    = "NamespaceNotFound"
	ReasonNamespaceTerminating = "NamespaceTerminating"
	ReasonInvalidTargetName    = "InvalidTargetName"
	ReasonControlCharacters    = "ControlCharacters"
	ReasonLabelsTooLarge       = "LabelsTooLarge"
	ReasonForbidden            = "Forbidden"
	ReasonInvalidObject        = "InvalidObject"

	// Per-alert skips: not an error, the policy chose not to investigate.
	ReasonPolicyExcluded = "PolicyExcluded"
	ReasonCooldown       = "Cooldown"
)

// PayloadError is why a whole payload was refused.
type PayloadError struct {
	Reason  string
	Message string
}

func (e *PayloadError) Error() string { return e.Reason + ": " + e.Message }

func payloadErr(reason, format string, args ...any) *PayloadError {
	return &PayloadError{Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// ParsePayload decodes and checks the structure of an Alertmanager webhook payload. It
// refuses the whole payload when the sender is not speaking version 4 correctly; problems
// that concern one alert's content (its namespace, its label values) are left to
// BuildSession so that one bad alert does not cost the others in its group.
func ParsePayload(body []byte, maxAlerts int) (*Payload, error) {
	if maxAlerts <= 0 {
		maxAlerts = DefaultMaxAlerts
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, payloadErr(ReasonMalformedJSON, "empty body")
	}
	if trimmed[0] != '{' {
		return nil, payloadErr(ReasonMalformedJSON, "body is not a JSON object")
	}
	if !utf8.Valid(trimmed) {
		return nil, payloadErr(ReasonMalformedJSON, "body is not valid UTF-8")
	}
	var p Payload
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(&p); err != nil {
		return nil, payloadErr(ReasonMalformedJSON, "%s", describeJSONError(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, payloadErr(ReasonMalformedJSON, "trailing data after the JSON object")
	}
	if p.Version == "" {
		return nil, payloadErr(ReasonMissingField, "version is required")
	}
	if p.Version != "4" {
		return nil, payloadErr(ReasonUnsupportedVersion, "version %q is not supported; want \"4\"", text.Clip(p.Version, 16))
	}
	if p.Status != StatusFiring && p.Status != StatusResolved {
		if p.Status == "" {
			return nil, payloadErr(ReasonMissingField, "status is required")
		}
		return nil, payloadErr(ReasonInvalidField, "status must be firing or resolved")
	}
	for name, v := range map[string]string{"receiver": p.Receiver, "groupKey": p.GroupKey, "externalURL": p.ExternalURL} {
		if len(v) > maxStringBytes {
			return nil, payloadErr(ReasonInvalidField, "%s is longer than %d bytes", name, maxStringBytes)
		}
	}
	if p.Alerts == nil {
		return nil, payloadErr(ReasonMissingField, "alerts is required")
	}
	if len(p.Alerts) == 0 {
		return nil, payloadErr(ReasonMissingField, "alerts is empty")
	}
	if len(p.Alerts) > maxAlerts {
		return nil, payloadErr(ReasonTooManyAlerts, "%d alerts in one payload; at most %d", len(p.Alerts), maxAlerts)
	}
	for i := range p.Alerts {
		if err := checkAlertStructure(&p.Alerts[i]); err != nil {
			err.Message = fmt.Sprintf("alerts[%d]: %s", i, err.Message)
			return nil, err
		}
	}
	return &p, nil
}

// checkAlertStructure checks the fields every version-4 alert carries and normalises the
// fingerprint to lowercase.
func checkAlertStructure(a *Alert) *PayloadError {
	switch {
	case a.Status == "":
		return payloadErr(ReasonMissingField, "status is required")
	case a.Status != StatusFiring && a.Status != StatusResolved:
		return payloadErr(ReasonInvalidField, "status must be firing or resolved")
	case len(a.Labels) == 0:
		return payloadErr(ReasonMissingField, "labels are required")
	case a.Labels["alertname"] == "":
		return payloadErr(ReasonMissingField, "labels.alertname is required")
	case a.StartsAt.IsZero():
		return payloadErr(ReasonMissingField, "startsAt is required")
	case a.Fingerprint == "":
		return payloadErr(ReasonMissingField, "fingerprint is required")
	case len(a.GeneratorURL) > maxStringBytes:
		return payloadErr(ReasonInvalidField, "generatorURL is longer than %d bytes", maxStringBytes)
	}
	if len(a.Fingerprint) > MaxFingerprintLen || !isHex(a.Fingerprint) {
		return payloadErr(ReasonInvalidField, "fingerprint must be at most %d hexadecimal digits", MaxFingerprintLen)
	}
	a.Fingerprint = strings.ToLower(a.Fingerprint)
	if y := a.StartsAt.Year(); y < 1970 || y > 9999 {
		return payloadErr(ReasonInvalidField, "startsAt is out of range")
	}
	return nil
}

// checkAlertContent reports why an alert's labels or annotations cannot be used: too many,
// too long, or carrying control or invisible formatting characters in label names or
// values, which identify objects and must be exactly what they look like.
func checkAlertContent(a *Alert) (reason, message string) {
	if len(a.Labels) > MaxLabels || len(a.Annotations) > MaxLabels {
		return ReasonLabelsTooLarge, fmt.Sprintf("at most %d labels and %d annotations", MaxLabels, MaxLabels)
	}
	for k, v := range a.Labels {
		if len(k) > MaxLabelNameBytes || len(v) > MaxLabelValueBytes {
			return ReasonLabelsTooLarge, fmt.Sprintf("label names are at most %d bytes and values %d", MaxLabelNameBytes, MaxLabelValueBytes)
		}
		if hasHiddenRunes(k) || hasHiddenRunes(v) {
			return ReasonControlCharacters, fmt.Sprintf("label %q has control or formatting characters", text.Clip(cleanText(k), 64))
		}
	}
	for k, v := range a.Annotations {
		if len(k) > MaxLabelNameBytes || len(v) > MaxAnnotationValueBytes {
			return ReasonLabelsTooLarge, fmt.Sprintf("annotation names are at most %d bytes and values %d", MaxLabelNameBytes, MaxAnnotationValueBytes)
		}
		if hasHiddenRunes(k) {
			return ReasonControlCharacters, fmt.Sprintf("annotation name %q has control or formatting characters", text.Clip(cleanText(k), 64))
		}
	}
	return "", ""
}

// hasHiddenRunes reports control characters (C0, C1, DEL) and Unicode format characters
// such as bidirectional overrides and zero-width joiners.
func hasHiddenRunes(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError {
			return true
		}
	}
	return false
}

// cleanText drops control and format characters except newline and tab, so that free text
// handed to the brains (annotations) shows everything it says.
func cleanText(s string) string {
	if !hasHiddenRunes(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r':
			b.WriteByte('\n')
		case unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError:
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// describeJSONError turns a decoder error into a message that names the position or field
// without echoing the input back.
func describeJSONError(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var tim *time.ParseError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("invalid JSON at byte %d", syn.Offset)
	case errors.As(err, &typ):
		if typ.Field != "" {
			return fmt.Sprintf("%s must be a JSON %s", text.Clip(typ.Field, 128), jsonKind(typ.Type.Kind().String()))
		}
		return fmt.Sprintf("unexpected JSON %s at byte %d", typ.Value, typ.Offset)
	case errors.As(err, &tim):
		return "a time is not in RFC 3339 format"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "unexpected end of JSON"
	default:
		return "invalid JSON"
	}
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "string"
	case "map", "struct":
		return "object"
	case "slice":
		return "array"
	case "int", "int64":
		return "number"
	default:
		return "value"
	}
}
