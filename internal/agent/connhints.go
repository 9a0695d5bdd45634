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
	"regexp"
	"strings"
)

// Some connection errors of common drivers are answered by one change to the client's
// connection URL or user, documented by their projects and met by every team once: the
// option MySQL 8 demands, the scheme SQLAlchemy renamed, the database MongoDB looks users up
// in. connHints pairs their signatures with that change, so the summary that names the
// client's connection settings (connectionNote) says what to change in them.

// connHint is one signature and the change it calls for.
type connHint struct {
	sign *regexp.Regexp // on the lower-cased error line and the lines under it
	// setting, when set, must match the value of one of the client's settings (the URL's user).
	setting *regexp.Regexp
	hint    string
}

var connHints = []connHint{
	{sign: regexp.MustCompile(`public key retrieval is not allowed`),
		hint: "MySQL 8 (caching_sha2_password) sends its RSA key to a client on a plain connection only when the connection URL sets allowPublicKeyRetrieval=true (or the connection uses TLS, useSSL=true)"},
	{sign: regexp.MustCompile(`sqlalchemy\.dialects[:.]postgres\b`),
		hint: "SQLAlchemy 1.4 and later load no dialect named postgres: the URL must start with postgresql:// (or postgresql+psycopg2://), not postgres://"},
	{sign: regexp.MustCompile(`(?s)mongo.*authentication failed|authentication failed.*mongo`),
		hint: "MongoDB looks the user up in the database authSource names (by default the database of the URI's path): a user created in admin needs authSource=admin in the connection URI"},
	{sign: regexp.MustCompile(`ssl is not enabled on the server|server does not support ssl`),
		hint: "the client demands TLS (sslmode=require or stricter) from a server that offers none: set sslmode=disable or prefer in the URL, or enable ssl on the server"},
	{sign: regexp.MustCompile(`authentication method unknown to the client|caching_sha2_password' cannot be loaded|plugin caching_sha2_password could not be loaded`),
		hint: "the client library predates MySQL 8's caching_sha2_password: upgrade the driver, or give the user mysql_native_password"},
	{sign: regexp.MustCompile(`scram authentication requires libpq version 10`),
		hint: "the client's libpq is older than 10 and cannot do SCRAM: upgrade the client library, or store the user's password with password_encryption = md5"},
	{sign: regexp.MustCompile(`noauth authentication required`),
		hint: "the Redis server requires a password the client does not send: put it in the URL (redis://:PASSWORD@host:6379) or in the client's password setting"},
	{sign: regexp.MustCompile(`access_refused|access refused`), setting: regexp.MustCompile(`^amqps?://guest[:@]`),
		hint: "RabbitMQ lets its default user guest log in only from localhost (loopback_users): create a user for the application and put it in the broker URL"},
}

// connectionHint is the change the error's signature calls for ("" when none matches).
func connectionHint(text string, settings []configSetting) string {
	low := strings.ToLower(text)
	for _, h := range connHints {
		if !h.sign.MatchString(low) {
			continue
		}
		if h.setting != nil {
			ok := false
			for _, s := range settings {
				ok = ok || !s.secret && h.setting.MatchString(strings.ToLower(s.value))
			}
			if !ok {
				continue
			}
		}
		return h.hint
	}
	return ""
}
