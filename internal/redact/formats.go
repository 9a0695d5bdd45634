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

package redact

import (
	"math"
	"regexp"
	"sort"
	"strings"
)

// Format is one kind of credential the Redactor recognises, with an example of it and a
// near miss that must stay untouched. Formats whose Pattern is empty are caught by the
// core rules of redact.go (PEM blocks, JWTs, URL credentials, Bearer/Basic headers and
// secret keys in key=value, JSON and YAML); they are listed so that the table, and the
// tests over it, cover every format the operator promises to remove.
type Format struct {
	// Name identifies the format in tests and documentation.
	Name string
	// Kind is the marker kind of a match ([REDACTED:<kind>]).
	Kind string
	// Pattern matches the credential; when it has a capture group, only the group is
	// replaced (the key or prefix around it stays readable).
	Pattern string
	// Anchors are lower-case substrings one of which every match contains; the pattern
	// only runs on lines holding one.
	Anchors []string
	// MultiLine patterns see the whole text instead of single lines.
	MultiLine bool
	// Positive holds a credential of the format (a fake with the right shape).
	Positive string
	// Negative looks alike but is not a credential, and must survive redaction.
	Negative string
}

// Formats is the table of credential formats, in the order their rules run.
var Formats = []Format{
	// Cloud providers.
	{Name: "aws-access-key-id", Kind: KindAPIKey, Pattern: `\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}\b`,
		Anchors:  []string{"akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "aipa", "anpa", "anva", "apka"},
		Positive: "aws configure set aws_access_key_id AKIAZ7QX2RT6LM4PEW3D", Negative: "instance profile AKIA-rotation-runbook"},
	{Name: "aws-secret-access-key", Kind: KindSecret, Pattern: `(?i)aws.{0,24}?(?:secret|sk)[a-z_ -]{0,16}["']?\s*[:=]?\s*["']?([A-Za-z0-9/+]{40})\b`,
		Anchors: []string{"aws"}, Positive: "export AWS_SECRET=Zq8mN3vR7tY1uI5oP9aS2dF6gH0jK4lZxC8vB3nM",
		Negative: "aws secrets manager holds the database password rotation schedule"},
	{Name: "aws-session-token", Kind: KindToken, Pattern: `\b(?:FwoGZXIvYXdzE|IQoJb3JpZ2luX2Vj)[A-Za-z0-9/+=]{40,}`,
		Anchors: []string{"fwogzxivyxdze", "iqojb3jpz2lux2vj"}, Positive: "session IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQDx7Vq9pL3mK2sT8wR5yN1bH4cJ6fG0aZ",
		Negative: "IQoJb3JpZ2luX2Vj is how STS tokens start"},
	{Name: "gcp-service-account-private-key", Kind: KindPrivateKey,
		Positive: `{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7q3mKx\n-----END PRIVATE KEY-----\n"}`,
		Negative: `{"type": "service_account", "client_email": "svc", "project_id": "shop-prod"}`},
	{Name: "gcp-private-key-id", Kind: KindSecret, Pattern: `"private_key_id"\s*:\s*"([0-9a-f]{40})"`, Anchors: []string{"private_key_id"},
		Positive: `"private_key_id": "4f1c9e2b7a3d8e6f0b5c1a9d2e7f3b8c6a0d4e1f"`, Negative: `"private_key_id": ""`},
	{Name: "gcp-api-key", Kind: KindAPIKey, Pattern: `\bAIza[0-9A-Za-z_-]{35}\b`, Anchors: []string{"aiza"},
		Positive: "maps key AIzaSyD4r7Qp2Lm9Xv8Tn3Kb6Wc1Zy5Hs0Jf2Ue", Negative: "AIza keys belong in Secret Manager"},
	{Name: "gcp-oauth-client-secret", Kind: KindSecret, Pattern: `\bGOCSPX-[A-Za-z0-9_-]{28}\b`, Anchors: []string{"gocspx-"},
		Positive: "client 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", Negative: "GOCSPX-short"},
	{Name: "google-oauth-access-token", Kind: KindToken, Pattern: `\bya29\.[0-9A-Za-z_-]{30,}`, Anchors: []string{"ya29."},
		Positive: "ya29.a0AfB_byD4r7Qp2Lm9Xv8Tn3Kb6Wc1Zy5Hs0JfUe", Negative: "ya29.short"},
	{Name: "azure-storage-connection-string", Kind: KindAPIKey, Pattern: `(?i)\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)=([^;\s"']{16,})`,
		Anchors:  []string{"accountkey=", "sharedaccesskey=", "sharedaccesssignature="},
		Positive: "DefaultEndpointsProtocol=https;AccountName=shopprod;AccountKey=q8mN3vR7tY1uI5oP9aS2dF6gH0jK4lZxC8vB3nM7qW2eR5tY9uI1oP4aS6dF8gH0jK2lZ4xC6vB8nM0qW2eR==;EndpointSuffix=core.windows.net",
		Negative: "DefaultEndpointsProtocol=https;AccountName=shopprod;EndpointSuffix=core.windows.net"},
	{Name: "azure-sas-token", Kind: KindToken, Pattern: `[?&]sig=([A-Za-z0-9%+/=]{20,})`, Anchors: []string{"sig="},
		Positive: "https://shopprod.blob.core.windows.net/logs?sv=2022-11-02&se=2026-01-01&sig=Zq8mN3vR7tY1uI5oP9aS2dF6gH0jK4lZ%3D",
		Negative: "https://shopprod.blob.core.windows.net/logs?sv=2022-11-02&sig="},
	{Name: "azure-ad-client-secret", Kind: KindSecret, Pattern: `\b[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}\b`, Anchors: []string{"q~"},
		Positive: "client secret abc8Q~Zq8mN3vR7tY1uI5oP9aS2dF6gH0jK4lZx", Negative: "the abc8Q~ prefix marks Entra secrets"},
	{Name: "alibaba-access-key-id", Kind: KindAPIKey, Pattern: `\bLTAI[A-Za-z0-9]{12,20}\b`, Anchors: []string{"ltai"},
		Positive: "LTAI5tQx2Rt6Lm4Pew3DzK9v", Negative: "LTAI keys are Alibaba's"},
	{Name: "digitalocean-token", Kind: KindToken, Pattern: `\bdo[opr]_v1_[a-f0-9]{64}\b`, Anchors: []string{"_v1_"},
		Positive: "dop_v1_4f1c9e2b7a3d8e6f0b5c1a9d2e7f3b8c6a0d4e1f4f1c9e2b7a3d8e6f0b5c1a9d", Negative: "dop_v1_ then 64 hex digits"},
	{Name: "heroku-api-key", Kind: KindAPIKey, Pattern: `(?i)(?:\bHRKU-[A-Za-z0-9_-]{60,}|heroku.{0,24}?[:=]\s*["']?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}))`,
		Anchors: []string{"hrku-", "heroku"}, Positive: "HEROKU_API_TOKEN_V2=9f1c3e2b-7a3d-4e6f-8b5c-1a9d2e7f3b8c", Negative: "heroku app shop-prod-9f1c3e2b"},
	// Source hosting and CI.
	{Name: "github-classic-token", Kind: KindAPIKey, Pattern: `\bgh[pousr]_[A-Za-z0-9]{36,}\b`, Anchors: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"},
		Positive: "git clone https://ghp_Zq8mN3vR7tY1uI5oP9aS2dF6gH0jK4lZxC8v@github.com/shop/app", Negative: "ghp_ tokens expire"},
	{Name: "github-fine-grained-token", Kind: KindAPIKey, Pattern: `\bgithub_pat_[A-Za-z0-9_]{60,}`, Anchors: []string{"github_pat_"},
		Positive: "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xC6vB8n", Negative: "github_pat_short"},
	{Name: "gitlab-token", Kind: KindAPIKey, Pattern: `\b(?:glpat|glrt|gldt|glptt|glcbt|glft|glimt|glsoat|gloas)-[A-Za-z0-9_-]{20,}`,
		Anchors:  []string{"glpat-", "glrt-", "gldt-", "glptt-", "glcbt-", "glft-", "glimt-", "glsoat-", "gloas-"},
		Positive: "CI_JOB uses glpat-Zq8mN3vR7tY1uI5oP9aS", Negative: "glpat-short"},
	{Name: "docker-hub-token", Kind: KindToken, Pattern: `\bdckr_pat_[A-Za-z0-9_-]{27,}`, Anchors: []string{"dckr_pat_"},
		Positive: "docker login -p dckr_pat_Zq8mN3vR7tY1uI5oP9aS2dF6gH0", Negative: "dckr_pat_ is Docker Hub's prefix"},
	{Name: "dockerconfigjson-auth", Kind: KindPassword, Pattern: `"auth"\s*:\s*"([A-Za-z0-9+/]{8,}={0,2})"`, Anchors: []string{`"auth"`},
		Positive: `{"auths":{"registry.shop.io":{"auth":"c2hvcDpabzhtTjN2UjdUWTF1STVvUA=="}}}`, Negative: `{"auths":{"registry.shop.io":{"auth":""}}}`},
	{Name: "dockerconfigjson-base64", Kind: KindSecret, Pattern: `\bey[JI]hdXRocyI6[A-Za-z0-9+/=]+`, Anchors: []string{"eyjhdxrocyi6", "eyihdxrocyi6"},
		Positive: ".dockerconfigjson: eyJhdXRocyI6eyJyZWdpc3RyeS5zaG9wLmlvIjp7ImF1dGgiOiJjMmh2Y0RwYWJ6aHRUak4yVWpkVVdURjFTVFZ2VUE9PSJ9fX0=",
		Negative: ".dockerconfigjson: (from the Secret regcred)"},
	{Name: "npm-token", Kind: KindToken, Pattern: `\bnpm_[A-Za-z0-9]{36}\b`, Anchors: []string{"npm_"},
		Positive: "//registry.npmjs.org/:_authToken=npm_Zq8mN3vR7tY1uI5oP9aS2dF6gH0jK4lZxC8v", Negative: "npm_config_cache=/tmp/npm"},
	{Name: "pypi-token", Kind: KindToken, Pattern: `\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`, Anchors: []string{"pypi-ageichlwas5vcmc"},
		Positive: "TWINE_PASSWORD_FILE holds pypi-AgEIcHlwaS5vcmcCJDQ4ZTk5ZmQ3LWY0ZjYtNGQ5Zi1iMjM1LTk4ZjY0ZjY2YmE2ZQACKlszLCJhYmMiXQ", Negative: "pypi-AgEIcHlwaS5vcmc is a prefix"},
	{Name: "terraform-cloud-token", Kind: KindToken, Pattern: `\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}`, Anchors: []string{".atlasv1."},
		Positive: "TFE_TOKEN Zq8mN3vR7tY1uI.atlasv1.5oP9aS2dF6gH0jK4lZxC8vB3nM7qW2eR5tY9uI1oP4aS6dF8gH0jK2lZ4xC6vB8nM0q", Negative: "app.atlasv1.example"},
	{Name: "pulumi-token", Kind: KindToken, Pattern: `\bpul-[a-f0-9]{40}\b`, Anchors: []string{"pul-"},
		Positive: "pul-4f1c9e2b7a3d8e6f0b5c1a9d2e7f3b8c6a0d4e1f", Negative: "pul-request-42"},
	{Name: "doppler-token", Kind: KindToken, Pattern: `\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}\b`, Anchors: []string{"dp."},
		Positive: "DOPPLER dp.pt.Zq8mN3vR7tY1uI5oP9aS2dF6gH0jK4lZxC8vB3nM7qW", Negative: "dp.pt.short"},
	{Name: "vault-token", Kind: KindToken, Pattern: `\bhv[sbr]\.[A-Za-z0-9_-]{24,}`, Anchors: []string{"hvs.", "hvb.", "hvr."},
		Positive: "VAULT hvs.CAESIJq8mN3vR7tY1uI5oP9aS2dF6gH0jK4lZ", Negative: "hvs.short"},
	{Name: "age-secret-key", Kind: KindPrivateKey, Pattern: `\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b`, Anchors: []string{"age-secret-key-1"},
		Positive: "AGE-SECRET-KEY-1UJZDE8GXD6NCF10EPF91DHODZDOC9IS0J8HT9LGMXG9EDN581U33XTPLPF", Negative: "AGE-SECRET-KEY-1 starts age keys"},
	// Payments and commerce.
	{Name: "stripe-secret-key", Kind: KindAPIKey, Pattern: `\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}`, Anchors: []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_"},
		Positive: "STRIPE sk_live_51Hq8mN3vR7tY1uI5oP9aS2dF", Negative: "sk_live_ keys never go in ConfigMaps"},
	{Name: "stripe-restricted-key", Kind: KindAPIKey, Pattern: `\brk_live_[A-Za-z0-9]{20,}`, Anchors: []string{"rk_live_"},
		Positive: "rk_live_51Hq8mN3vR7tY1uI5oP9aS2dFx", Negative: "rk_live_ prefix"},
	{Name: "stripe-webhook-secret", Kind: KindSecret, Pattern: `\bwhsec_[A-Za-z0-9]{24,}`, Anchors: []string{"whsec_"},
		Positive: "whsec_Zq8mN3vR7tY1uI5oP9aS2dF6gH0", Negative: "whsec_ prefix"},
	{Name: "shopify-token", Kind: KindToken, Pattern: `\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b`, Anchors: []string{"shpat_", "shpca_", "shppa_", "shpss_"},
		Positive: "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", Negative: "shpat_ tokens"},
	{Name: "square-token", Kind: KindToken, Pattern: `\b(?:EAAA[A-Za-z0-9_-]{60}|sq0atp-[A-Za-z0-9_-]{22}|sq0csp-[A-Za-z0-9_-]{43})\b`, Anchors: []string{"eaaa", "sq0atp-", "sq0csp-"},
		Positive: "sq0atp-Zq8mN3vR7tY1uI5oP9aS2d", Negative: "sq0atp-short"},
	// Messaging and e-mail.
	{Name: "slack-token", Kind: KindAPIKey, Pattern: `\bxox[abeoprs]-[A-Za-z0-9-]{10,}`, Anchors: []string{"xox"},
		Positive: "SLACK xoxb-2048-4096-Zq8mN3vR7tY1uI5oP9aS2dF", Negative: "xoxo from the team"},
	{Name: "slack-webhook", Kind: KindSecret, Pattern: `https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_-]{20,}`, Anchors: []string{"hooks.slack.com/"},
		Positive: "https://hooks.slack.com/services/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", Negative: "https://hooks.slack.com/ is set per channel"},
	{Name: "discord-webhook", Kind: KindSecret, Pattern: `https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{30,}`, Anchors: []string{"/api/webhooks/"},
		Positive: "https://discord.com/api/webhooks/112233445566778899/Zq8mN3vR7tY1uI5oP9aS2dF6gH0jK4lZxC8vB3nM7qW2eR5tY9uI1oP4aS6d", Negative: "https://discord.com/api/webhooks/ docs"},
	{Name: "telegram-bot-token", Kind: KindToken, Pattern: `\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b`, Anchors: []string{":aa"},
		Positive: "bot 1234567890:AAKtHF4vUCsMehGAkWvj7FAc9QeWJKY40uv", Negative: "at 12:AA the batch ran"},
	{Name: "sendgrid-key", Kind: KindAPIKey, Pattern: `\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b`, Anchors: []string{"sg."},
		Positive: "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", Negative: "SG.loadbalancer.rules"},
	{Name: "twilio-api-key", Kind: KindAPIKey, Pattern: `\bSK[0-9a-fA-F]{32}\b`, Anchors: []string{"sk"},
		Positive: "TWILIO key SK4f1c9e2b7a3d8e6f0b5c1a9d2e7f3b8c", Negative: "SKU 4f1c9e2b"},
	{Name: "twilio-auth-token", Kind: KindToken, Pattern: `(?i)twilio.{0,24}?[:=]\s*["']?([0-9a-f]{32})\b`, Anchors: []string{"twilio"},
		Positive: "TWILIO_AUTH=4f1c9e2b7a3d8e6f0b5c1a9d2e7f3b8c", Negative: "twilio account for shop-prod"},
	{Name: "mailgun-key", Kind: KindAPIKey, Pattern: `\bkey-[0-9a-f]{32}\b`, Anchors: []string{"key-"},
		Positive: "api:key-4f1c9e2b7a3d8e6f0b5c1a9d2e7f3b8c", Negative: "key-value store"},
	{Name: "postman-key", Kind: KindAPIKey, Pattern: `\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b`, Anchors: []string{"pmak-"},
		Positive: "PMAK-4f1c9e2b7a3d8e6f0b5c1a9d-2e7f3b8c6a0d4e1f4f1c9e2b7a3d8e6f0b", Negative: "PMAK-short"},
	{Name: "linear-key", Kind: KindAPIKey, Pattern: `\blin_api_[A-Za-z0-9]{40}\b`, Anchors: []string{"lin_api_"},
		Positive: "lin_api_Zq8mN3vR7tY1uI5oP9aS2dF6gH0jK4lZxC8vB3nM", Negative: "lin_api_ prefix"},
	{Name: "atlassian-token", Kind: KindToken, Pattern: `\bAT(?:ATT|CTT)3[A-Za-z0-9_=-]{50,}`, Anchors: []string{"atatt3", "atctt3"},
		Positive: "JIRA ATATT3xFfGF0Zq8mN3vR7tY1uI5oP9aS2dF6gH0jK4lZxC8vB3nM7qW2eR5tY9=4F1C9E2B", Negative: "ATATT3 is the Atlassian prefix"},
	// Observability.
	{Name: "datadog-api-key", Kind: KindAPIKey,
		Positive: "DD_API_KEY=4f1c9e2b7a3d8e6f0b5c1a9d2e7f3b8c", Negative: "DD_SITE=datadoghq.eu"},
	{Name: "new-relic-key", Kind: KindAPIKey, Pattern: `\bNR(?:AK|II|JS|AA|RA)-[A-Za-z0-9]{19,32}\b`, Anchors: []string{"nrak-", "nrii-", "nrjs-", "nraa-", "nrra-"},
		Positive: "NEW_RELIC NRAK-Zq8mN3vR7tY1uI5oP9aS2dF6gH0", Negative: "NRAK-short"},
	{Name: "grafana-token", Kind: KindToken, Pattern: `\b(?:glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})`, Anchors: []string{"glc_", "glsa_"},
		Positive: "glsa_Zq8mN3vR7tY1uI5oP9aS2dF6gH0jK4lZ_4f1c9e2b", Negative: "glsa_ prefix"},
	{Name: "sentry-token", Kind: KindToken, Pattern: `\bsntr(?:ys|yu|us)_[A-Za-z0-9+/=_]{40,}`, Anchors: []string{"sntrys_", "sntryu_", "sntrus_"},
		Positive: "sntrys_eyJpYXQiOjE3MDAwMDAwMDAuMCwidXJsIjoiaHR0cHM6Ly9zZW50cnkuaW8ifQ_Zq8mN3vR7tY1uI5oP9aS", Negative: "sntrys_ prefix"},
	// Model providers.
	{Name: "openai-key", Kind: KindAPIKey, Pattern: `\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`, Anchors: []string{"sk-"},
		Positive: "OPENAI sk-proj-Zq8mN3vR7tY1uI5oP9aS2dF6gH0jK4lZ", Negative: "sk-learn is a library"},
	{Name: "anthropic-key", Kind: KindAPIKey, Pattern: `\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{20,}`, Anchors: []string{"sk-ant-"},
		Positive: "sk-ant-api03-Zq8mN3vR7tY1uI5oP9aS2dF6gH0jK4lZxC8v", Negative: "sk-ant- prefix"},
	{Name: "huggingface-token", Kind: KindToken, Pattern: `\bhf_[A-Za-z0-9]{30,}\b`, Anchors: []string{"hf_"},
		Positive: "HF hf_Zq8mN3vR7tY1uI5oP9aS2dF6gH0jK4lZxC", Negative: "hf_transfer enabled"},
	// Generic shapes (core rules).
	{Name: "jwt", Kind: KindJWT,
		Positive: "token eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6c2hvcDp3ZWIifQ.Zq8mN3vR7tY1uI5oP9aS2dF6gH0",
		Negative: "eyJ alone is not a token"},
	{Name: "pem-private-key", Kind: KindPrivateKey,
		Positive: "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAq8mN3vR7tY1uI5oP9aS2dF6gH0jK4lZxC8vB3nM7qW2eR5tY\n-----END RSA PRIVATE KEY-----",
		Negative: "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n-----END CERTIFICATE-----"},
	{Name: "openssh-private-key", Kind: KindPrivateKey,
		Positive: "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----",
		Negative: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHq8mN3vR7tY1uI5oP9aS2dF6gH0jK4lZxC8vB3nM7qW deploy"},
	{Name: "pgp-private-key", Kind: KindPrivateKey, Pattern: `-----BEGIN PGP PRIVATE KEY BLOCK-----(?s:.*?)(?:-----END PGP PRIVATE KEY BLOCK-----|$)`,
		Anchors: []string{"begin pgp private key block"}, MultiLine: true,
		Positive: "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQVYBGVq8mN3vR7tY1uI5oP9aS2dF6gH0jK4lZxC8vB3nM\n-----END PGP PRIVATE KEY BLOCK-----",
		Negative: "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQINBGVq8mN3vR7tY1uI5oP9aS2dF6gH0jK4lZxC8vB3nM\n-----END PGP PUBLIC KEY BLOCK-----"},
	// Key material whose BEGIN line was cut off (a log line on its own).
	{Name: "openssh-key-body", Kind: KindPrivateKey, Pattern: `\bb3BlbnNzaC1rZXktdjE[A-Za-z0-9+/=]*`, Anchors: []string{"b3blbnnzac1rzxktdje"},
		Positive: "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", Negative: "b3BlbnNzaC1 is base64 for openssh-"},
	{Name: "der-private-key-body", Kind: KindPrivateKey, Pattern: `\b(?:MII[A-Za-z0-9+/]{3}IBA(?:DANBgkqhkiG9w0BAQEFAASC|AKC)|MHcCAQEEI)[A-Za-z0-9+/=]*`,
		Anchors:  []string{"ibadanbgkqhkig9w0baqefaasc", "ibaakc", "mhccaqeei"},
		Positive: "MIIEowIBAAKCAQEAq8mN3vR7tY1uI5oP9aS2dF6gH0jK4lZxC8vB3nM7qW2eR5tY", Negative: "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ"},
	{Name: "url-basic-auth", Kind: KindPassword,
		Positive: "fetch https://deploy:Zq8mN3vR7tY1uI5o@git.shop.io/app.git", Negative: "fetch https://git.shop.io/app.git"},
	{Name: "bearer-header", Kind: KindToken,
		Positive: "Authorization: Bearer Zq8mN3vR7tY1uI5oP9aS2dF6gH0jK4lZ", Negative: "WWW-Authenticate: Bearer realm"},
	{Name: "basic-header", Kind: KindToken,
		Positive: "Authorization: Basic ZGVwbG95OlpxOG1OM3ZSN3RZMXVJNW8=", Negative: "basic auth is disabled"},
	{Name: "password-key-value", Kind: KindPassword,
		Positive: "DB_PASSWORD=Zq8mN3vR7tY1uI5o", Negative: "DB_PASSWORD_FILE is unset"},
	{Name: "password-json", Kind: KindPassword,
		Positive: `{"user":"shop","password":"Zq8mN3vR7tY1uI5o"}`, Negative: `{"user":"shop","passwordPolicy":"strict"}`},
	{Name: "password-yaml", Kind: KindPassword,
		Positive: "redis:\n  password: Zq8mN3vR7tY1uI5o\n", Negative: "redis:\n  passwordless: true\n"},
	{Name: "postgres-url", Kind: KindPassword,
		Positive: "DATABASE_URL=postgres://shop:Zq8mN3vR7tY1uI5o@db.shop.svc:5432/orders", Negative: "DATABASE_URL=postgres://db.shop.svc:5432/orders"},
	{Name: "mongodb-srv-url", Kind: KindPassword,
		Positive: "mongodb+srv://shop:Zq8mN3vR7tY1uI5o@cluster0.mongodb.net/orders", Negative: "mongodb+srv://cluster0.mongodb.net/orders"},
	{Name: "ado-connection-string", Kind: KindPassword,
		Positive: "Server=tcp:sql.shop.io,1433;Database=orders;User ID=shop;Password=Zq8mN3vR7tY1uI5o;Encrypt=true", Negative: "Server=tcp:sql.shop.io,1433;Database=orders;Encrypt=true"},
	{Name: "client-secret-key-value", Kind: KindSecret,
		Positive: "OIDC_CLIENT_SECRET: Zq8mN3vR7tY1uI5oP9aS", Negative: "OIDC_CLIENT_ID: shop-web"},
	{Name: "x-api-key-header", Kind: KindAPIKey,
		Positive: "X-API-Key: Zq8mN3vR7tY1uI5oP9aS2dF6", Negative: "X-Request-Id: 7d9f2c"},
	{Name: "high-entropy-secret-key", Kind: KindSecret,
		Positive: "webhookSigningSecretValue=Zq8mN3vR7tY1uI5oP9aS2dF6gH0jK4", Negative: "webhookSigningSecretName=shop-webhook"},
}

// formatRule compiles the table into one scanning rule. One pass over the lower-cased
// text finds which anchors occur (indexed by their first two bytes); only the patterns of
// those anchors run.
func formatRule() rule {
	type compiled struct {
		kind string
		re   *regexp.Regexp
	}
	var table []compiled
	type anchor struct {
		text   string
		format int
	}
	byPrefix := map[uint16][]anchor{}
	for _, f := range Formats {
		if f.Pattern == "" {
			continue
		}
		for _, a := range f.Anchors {
			if len(a) < 2 {
				panic("redact: format " + f.Name + " has an anchor shorter than two bytes")
			}
			k := uint16(a[0])<<8 | uint16(a[1])
			byPrefix[k] = append(byPrefix[k], anchor{a, len(table)})
		}
		table = append(table, compiled{f.Kind, regexp.MustCompile(f.Pattern)})
	}
	var first [256]bool
	for k := range byPrefix {
		first[k>>8] = true
	}
	return rule{kind: KindSecret, scan: func(_ *Redactor, s string) (string, int) {
		lower := asciiLower(s)
		var hit []bool
		for i := 0; i+1 < len(lower); i++ {
			if !first[lower[i]] {
				continue
			}
			for _, a := range byPrefix[uint16(lower[i])<<8|uint16(lower[i+1])] {
				if strings.HasPrefix(lower[i:], a.text) {
					if hit == nil {
						hit = make([]bool, len(table))
					}
					hit[a.format] = true
				}
			}
		}
		n := 0
		for f, c := range table {
			if hit == nil || !hit[f] {
				continue
			}
			s = c.re.ReplaceAllStringFunc(s, func(match string) string {
				n++
				m := c.re.FindStringSubmatchIndex(match)
				for g := 2; m != nil && g+1 < len(m); g += 2 {
					if m[g] >= 0 {
						return match[:m[g]] + Marker + c.kind + "]" + match[m[g+1]:]
					}
				}
				return Marker + c.kind + "]"
			})
		}
		return s, n
	}}
}

// The format rules run after PEM blocks, URL credentials and JWTs (which contain shorter
// shapes) and before Bearer headers and key=value scanning; the entropy scan runs last
// among the secret rules, before e-mail and IP pseudonyms.
func init() {
	at := len(rules)
	for i, ru := range rules {
		if ru.kind == KindToken && ru.re == authRE {
			at = i
			break
		}
	}
	rules = append(rules[:at], append([]rule{formatRule()}, rules[at:]...)...)
	for i, ru := range rules {
		if ru.kind == KindEmail {
			rules = append(rules[:i], append([]rule{{kind: KindSecret, scan: scanSecretLooking}}, rules[i:]...)...)
			break
		}
	}
}

// scanSecretLooking replaces values of keys that contain a secret word anywhere
// ("webhookSigningSecretValue", "authTokenB64"), which the key=value scanner (keys that
// end in one) misses, but only when the value looks random. A scanner, not a regular
// expression, because it runs on every text.
func scanSecretLooking(_ *Redactor, s string) (string, int) {
	lower := asciiLower(s)
	type span struct{ start, end int }
	var spans []span
	for _, w := range secretLookingWords {
		for off := 0; ; {
			j := strings.Index(lower[off:], w)
			if j < 0 {
				break
			}
			// The key runs to the end of its word characters.
			end := off + j + len(w)
			for end < len(s) && isKeyByte(s[end]) {
				end++
			}
			off = end
			if vs, ve, ok := valueAfter(s, end); ok {
				spans = append(spans, span{vs, ve})
			}
		}
	}
	if len(spans) == 0 {
		return s, 0
	}
	sort.Slice(spans, func(a, b int) bool { return spans[a].start < spans[b].start })
	var b strings.Builder
	n, last := 0, 0
	for _, sp := range spans {
		if sp.start < last {
			continue
		}
		val := s[sp.start:sp.end]
		open, closing := "", ""
		if q := val[0]; q == '"' || q == '\'' {
			open, val = val[:1], val[1:]
			if len(val) > 0 && val[len(val)-1] == q {
				closing, val = val[len(val)-1:], val[:len(val)-1]
			}
		}
		if !highEntropy(val) {
			continue
		}
		b.WriteString(s[last:sp.start])
		b.WriteString(open + Marker + KindSecret + "]" + closing)
		last = sp.end
		n++
	}
	if n == 0 {
		return s, 0
	}
	b.WriteString(s[last:])
	return b.String(), n
}

// secretLookingWords make a key secret-looking wherever they occur in it.
var secretLookingWords = []string{"token", "secret", "passw", "pwd", "apikey", "api_key", "credential", "private", "signature", "auth", "salt"}

func isKeyByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// highEntropy says whether v looks random: long enough, several character classes and
// at least 3.5 bits of Shannon entropy per character (words and names stay below).
func highEntropy(v string) bool {
	if len(v) < 16 || strings.HasPrefix(v, Marker) {
		return false
	}
	classes := 0
	for _, set := range []string{"abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789"} {
		if strings.ContainsAny(v, set) {
			classes++
		}
	}
	return classes >= 2 && shannon(v) >= 3.5 && !wordsOnly(v)
}

// wordsOnly says whether v is made of plain words and numbers ("X-Hub-Signature-256",
// "registry.shop.io"): every segment between separators is all letters or all digits.
func wordsOnly(v string) bool {
	for _, seg := range strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune("-._/~+=", r) }) {
		letters, digits := false, false
		for i := 0; i < len(seg); i++ {
			switch c := seg[i]; {
			case c >= '0' && c <= '9':
				digits = true
			default:
				letters = true
			}
		}
		if letters && digits {
			return false
		}
		if letters && caseChanges(seg)*4 > len(seg) {
			return false // case flips too often for camelCase words: "qXzPfKw"
		}
	}
	return true
}

func shannon(v string) float64 {
	var counts [256]int
	for i := 0; i < len(v); i++ {
		counts[v[i]]++
	}
	var h float64
	n := float64(len(v))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// caseChanges counts lower-to-upper transitions in s.
func caseChanges(s string) int {
	n := 0
	for i := 1; i < len(s); i++ {
		if s[i-1] >= 'a' && s[i-1] <= 'z' && s[i] >= 'A' && s[i] <= 'Z' {
			n++
		}
	}
	return n
}
