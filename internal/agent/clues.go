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
	"net"
	"regexp"
	"strings"

	"github.com/kubage/kubage/internal/tools"
)

// This file finds the line that carries an error in untrusted text (log tails, termination
// messages, event messages) and pulls out what it names: hosts, ports, file paths, setting
// names and RBAC denials. Everything is bounded: lines are clipped before any regexp runs
// and every list is capped, so a hostile log cannot grow the result or change its shape.

// ErrClass is a family of well-known errors.
type ErrClass string

const (
	ErrNone       ErrClass = ""
	ErrDNS        ErrClass = "dns"         // the name does not resolve
	ErrRefused    ErrClass = "refused"     // nothing listens (no endpoints, wrong port)
	ErrTimeout    ErrClass = "timeout"     // packets dropped (network policy, dead backend)
	ErrUnavail    ErrClass = "unavailable" // an upstream answered 502/503
	ErrPermission ErrClass = "permission"  // file system permissions
	ErrForbidden  ErrClass = "forbidden"   // the Kubernetes API refused (RBAC)
	ErrTLS        ErrClass = "tls"         // certificate expired or not trusted
	ErrDisk       ErrClass = "disk"        // no space left
	ErrFiles      ErrClass = "files"       // too many open files
	ErrMemory     ErrClass = "memory"      // out of memory
	ErrLimit      ErrClass = "limit"       // a server's connection limit is reached
	ErrPool       ErrClass = "pool"        // the client's own connection pool has no free connection
	ErrConfig     ErrClass = "config"      // a setting, key or file is missing
	ErrSchema     ErrClass = "schema"      // database schema or migration
	ErrAuth       ErrClass = "auth"        // credentials rejected
	ErrGeneric    ErrClass = "error"       // an error without a known family
)

// errFamilies is checked in order; the first family whose needle occurs wins.
var errFamilies = []struct {
	class   ErrClass
	needles []string
}{
	{ErrForbidden, []string{"is forbidden: user", "cannot list resource", "cannot get resource", "cannot watch resource", "cannot create resource", "cannot update resource", "cannot patch resource", "cannot delete resource"}},
	// A server at its connection limit refuses the connection and says why: the limit wins.
	{ErrLimit, []string{"too many connections", "too many clients", "remaining connection slots are reserved", "max_connections", "connection limit exceeded", "too many open connections"}},
	{ErrDNS, []string{"server misbehaving", "no such host", "server was not found", "eai_again", "could not resolve", "name or service not known", "enotfound", "unknown host", "temporary failure in name resolution", "could not translate host name", "nxdomain", "unknownhostexception", "name resolution", "nodename nor servname", "host not found", "unknown mysql server host",
		"bad address '", "can't resolve", "cannot resolve", "unable to resolve", "failed to resolve", "name does not resolve", "no address associated with hostname", "dns resolution failed", "dns lookup failed"}},
	{ErrRefused, []string{"can't connect to mysql server on", "connection_failure", "upstream_reset_before_response_started{connection", "connection refused", "econnrefused", "connect: connection reset", "actively refused"}},
	{ErrTLS, []string{"certificate_verify_failed", "pkix path building failed", "unable to find valid certification path", "self signed certificate", "self-signed certificate", "x509:", "certificate has expired", "certificate is not yet valid", "unknown authority", "certificate verify failed", "tls: bad certificate", "ssl handshake", "certificate is valid for", "key values mismatch", "private key does not match", "failed to load certificate", "unable to load certificate", "no pem data"}},
	{ErrPool, []string{"could not obtain a connection from the pool", "all pooled connections were in use", "connection is not available, request timed out", "queuepool limit of size", "timeout acquiring a connection", "pool is probably full",
		"connection pool exhausted", "pool exhausted", "connection from the pool", "connection from the connection pool", "connectionacquiretimeout", "timeout waiting for idle object", "waiting for a connection from the pool", "pool timeout"}},
	{ErrTimeout, []string{"code = deadlineexceeded", "upstream request timeout", "i/o timeout", "context deadline exceeded", "timed out", "etimedout", "deadline exceeded", "timeout expired", "connection timeout", "no route to host"}},
	{ErrUnavail, []string{"code = unavailable", "503", "service unavailable", "502 bad gateway", "bad gateway", "upstream connect error", "no healthy upstream", "upstream unavailable", "broker may not be available", "connection reset by peer", "connection reset", "connection closed by server", "server closed the connection unexpectedly", "lost connection to mysql server", "cannot connect to server", "could not connect to server", "cannot connect to broker", "could not connect to broker", "failed to connect to broker"}},
	{ErrDisk, []string{"no space left on device", "enospc", "disk quota exceeded", "disk full"}},
	{ErrFiles, []string{"too many open files", "emfile"}},
	{ErrMemory, []string{"could not reserve enough space", "out of memory", "outofmemoryerror", "cannot allocate memory", "oomkilled", "memory limit exceeded", "heap out of memory"}},
	{ErrAuth, []string{"code = unauthenticated", "access_refused", "login was refused", "authentication failed", "password authentication failed", "access denied for user", "invalid credentials", "401 unauthorized", "unauthorized", "invalid api key", "invalid password", "login failed", "wrongpass", "noauth", "auth failed", "bad credentials",
		"sqlstate 28000", "sqlstate 28p01", "invalidaccesskeyid", "signaturedoesnotmatch", "invalidclienttokenid", "security token included in the request is invalid", "invalid username or password"}},
	{ErrSchema, []string{"relation \"", "no such table", "doesn't exist", "unknown column", "migration", "undefined table", "undefinedtable", "database schema", "schema version", "dirty database", "changesets check sum", "locate revision",
		"undefinedcolumn", "undefined column", "no such column", "invalid column name", "invalid object name", "ora-00942", "ora-00904", "sqlstate 42703", "sqlstate 42p01"}},
	{ErrPermission, []string{"permission denied", "eacces", "operation not permitted", "read-only file system", "eperm", "accessdeniedexception"}},
	{ErrConfig, []string{"no_route", "unroutable", "unbound variable", "parameter null or not set", "no such file or directory", "does not exist", "not found", "not set", "is required", "missing required", "missing", "keyerror", "undefined", "not defined", "must be set", "must be specified", "no value", "not provided", "setting provided", "not configured", "invalid configuration", "unknown flag", "unknown option", "unknown shorthand flag", "unrecognized option", "unrecognized arguments", "not specified", "failed to configure", "unable to configure", "could not configure", "config"}},
}

// Clue is what the text says went wrong.
type Clue struct {
	// Line is the line that carries the error (sanitized, at most maxClueLine bytes).
	Line  string
	Class ErrClass
	Score int
	// Repeats counts the lines of the same error family (a workload that keeps failing).
	Repeats   int
	Hosts     []HostPort
	Paths     []string
	Keys      []string
	Forbidden *Denial
	// Links are values in the kubelet's Docker-link form ("tcp://10.96.4.4:6379"), which a
	// Service link variable (NAME_PORT) holds.
	Links []HostPort
	// KnownLine is the first line carrying a well-known error's signature (knownerrors.go),
	// sanitized like Line, and KnownRepeats the lines that carry it; known is its entry + 1.
	KnownLine    string
	KnownRepeats int
	known        int
	// Migration is the migration version an error names, with its line (analyze_migration.go).
	Migration, MigrationLine string
	// Also is a second distinct line that adds a fact Line lacks (cluealso.go); alsoKeys are
	// the setting names it adds to Keys.
	Also     string
	alsoKeys []string
}

// HostPort is a host named in the text, with the port when one was given.
type HostPort struct {
	Host string
	Port string
	// Weak marks a host read from loose wording ("connecting to X", "service=X"), which
	// needs more support (a DNS error, a match in the configuration) before it is blamed.
	Weak bool
}

func (h HostPort) String() string {
	if h.Port == "" {
		return h.Host
	}
	return net.JoinHostPort(h.Host, h.Port)
}

// Denial is a Kubernetes API authorization error quoted by an application.
type Denial struct {
	Namespace, ServiceAccount, User string
	// SANamespace is the namespace of the ServiceAccount the denial names, when it names one.
	SANamespace                  string
	Verb, Resource, Group, Scope string
	// Name is the object asked for (configmaps "inventory-flags" is forbidden), if quoted.
	Name string
	// Inferred is a denial read from a failure to sync an informer, not from a refusal:
	// only a SubjectAccessReview that denies it makes it one.
	Inferred bool
}

// Bounds of clue extraction.
const (
	maxClueLines   = 200  // lines considered (the tail)
	maxClueLineLen = 1000 // bytes of a line looked at
	maxClueLine    = 300  // bytes of the quoted line
	maxEntities    = 6    // hosts, paths and keys each
)

// zeroCounter is a count of failures or errors that is zero.
var zeroCounter = regexp.MustCompile(`(?i)\b(?:fail(?:ed|ures?|s)?|errors?|errs?|error_count|errorcount|exceptions?|panics?|fatal)(?:[ _-]?(?:count|total))?\s*[=:]\s*0+(?:\.0+)?\b|\b(?:0|no|zero)\s+(?:errors?|failures?|failed|exceptions?|panics?)\b`)

// IsError reports whether the clue carries an error at all.
func (c Clue) IsError() bool { return c.Score > 0 && c.Class != ErrNone }

var (
	stackFrame = regexp.MustCompile(`^\s*(?:\[[^\]\s]{1,64}\]\s*)?(at [\w.$<>/]+[(:]|[\w./-]+\.(go|s|py|js|ts|java|rb|rs|cs):\d+|File "[^"]*", line \d+|goroutine \d+ \[|\.\.\. \d+ (?:more|common frames omitted)|Caused by: \.\.\.)`)
	usageLine  = regexp.MustCompile(`(?i)^\s*(usage:|-{1,2}[a-z][\w-]*[ =]|flags:|options:|\s*-h, --help)`)
	// "alert" is a severity only as syslog writes it ([alert], ALERT, level=alert): as a
	// word it names alerting rules ("alert: HighErrorRate").
	fatalMarker = regexp.MustCompile(`(?i)\b(panic|fatal|critical|crit|emerg)\b|level=(fatal|panic|alert)|"level":\s*"(fatal|panic)"|\[alert\]|^F\d{4} \d\d:\d\d:\d\d|(?-i:\bALERT\b)`)
	errorMarker = regexp.MustCompile(`(?i)\b(error|err|exception|traceback|failed|failure|refused|refusing to|refuses to|denied|cannot|can't|unable|could not|couldn't|aborted|aborting)\b|level=error|"level":\s*"error"|\w+(error|exception)\b|\.(exceptions|errors)\.\w+:|^E\d{4} \d\d:\d\d:\d\d`)
	quietMarker = regexp.MustCompile(`(?i)\b(info|debug|trace)\b|level=(info|debug|trace)`)
	// accessLog5xx is a request line of an access log (nginx, Apache, envoy) answered 5xx.
	accessLog5xx = regexp.MustCompile(`"(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) [^"]{1,1000} HTTP/[0-9.]+" 5\d\d\b`)
	exitingWords = regexp.MustCompile(`(?i)\b(exiting|shutting down|exited|stopping|goodbye)\b`)

	// libpq: connection to server at "db" (10.96.4.4), port 5432 failed; Ruby: connect(2) for "db" port 5432
	pgServerAt = regexp.MustCompile(`"([a-z0-9][a-z0-9.-]{0,252})"(?: \([0-9a-f.:]{1,45}\))?,? port (\d{1,5})`)
	// conninfo and option lists: host=db port=5432, --host db --port 5432, host: db, port: 5432
	hostThenPort = regexp.MustCompile(`\bhost(?:name)?["']?\s*[=: ]\s*["']?([a-z0-9][a-z0-9.-]{0,252})["']?[,;]?\s+(?:--)?port["']?\s*[=: ]\s*["']?(\d{1,5})\b`)
	urlHost      = regexp.MustCompile(`\b[a-z][a-z0-9+.-]{1,15}://(?:[^@/\s"']{1,200}@)?([a-z0-9][a-z0-9.-]{0,252})(?::(\d{1,5}))?`)
	lookupHost   = regexp.MustCompile(`(?:lookup failed:?|lookup|unknownhostexception:|could not translate host name|bad address|can't resolve|cannot resolve|unable to resolve|failed to resolve) ["']?([a-z0-9][a-z0-9.-]{0,252})`)
	// nginx's resolver: "oauth2-proxy.sso.svc.cluster.local could not be resolved (3: Host not found)".
	unresolvedHost = regexp.MustCompile(`\b([a-z0-9][a-z0-9-]{0,62}(?:\.[a-z0-9-]{1,63}){0,6}) could not be resolved`)
	dialHost       = regexp.MustCompile(`dial (?:tcp|udp)[46]? ([a-z0-9][a-z0-9.-]{0,252}):(\d{1,5})`)
	pgxAddr        = regexp.MustCompile(`\b\d{1,3}(?:\.\d{1,3}){3}:(\d{1,5}) \(([a-z][a-z0-9.-]{0,252})\)`)
	// Envoy and Istio name the upstream cluster "outbound|PORT|subset|HOST".
	envoyCluster = regexp.MustCompile(`outbound\|(\d{1,5})\|[a-z0-9-]{0,63}\|([a-z0-9][a-z0-9.-]{0,252})`)
	// Java writes an address as name/ip:port.
	javaAddr   = regexp.MustCompile(`\b([a-z][a-z0-9-]{0,62}(?:\.[a-z0-9-]{1,63}){0,6})/\d{1,3}(?:\.\d{1,3}){3}:(\d{1,5})\b`)
	hostPortRe = regexp.MustCompile(`(?:^|[\s"'=(\[@,])([a-z][a-z0-9-]{0,62}(?:\.[a-z0-9-]{1,63}){0,6}):(\d{2,5})\b`)
	ipPortRe   = regexp.MustCompile(`\b(\d{1,3}(?:\.\d{1,3}){3})(?::(\d{1,5}))?\b`)
	// An IPv6 address with a port is bracketed: "dial tcp [fd00:10:96::7]:5432".
	ip6PortRe   = regexp.MustCompile(`\[([0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7})\]:(\d{1,5})\b`)
	keywordHost = regexp.MustCompile(`\b(?:host|hostname|server|addr|address|endpoint|upstream|service|backend|broker|url)["']?\s*[=:]\s*["']?([a-z0-9][a-z0-9.-]{0,252})`)
	phraseHost  = regexp.MustCompile(`(?:resolve host|resolve|host name|hostname|unknown host|enotfound|getaddrinfo \w+|connect(?:ing)? to|connection to|reach|calling|upstream|server at|on host|on server|\bhost)[: "'\x60]+([a-z0-9][a-z0-9.-]{0,252})`)

	// A Service link variable's value, in the kubelet's Docker-link form.
	linkValue = regexp.MustCompile(`\b(?:tcp|udp)://(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})\b`)

	pathRe = regexp.MustCompile(`(?:^|[\s"'=:(\[,])(/[A-Za-z0-9._@-]+(?:/[A-Za-z0-9._@-]+)+/?)`)

	keyBefore = regexp.MustCompile(`(?i)\b(?:environment variable|env var|env|variable|setting|config(?:uration)? key|config|key|parameter|option|property)\s+["'\x60]?([A-Za-z_][A-Za-z0-9_.-]{1,80})["'\x60]?\s+(?:is\s+|was\s+)?(?:not set|missing|required|undefined|empty|not found|not defined|must be set)`)
	keyAfter  = regexp.MustCompile(`(?i)\b(?:missing required|missing|required|undefined|unset|no value for|must set|not set:)\s+(?:(?:environment variable|env var|config(?:uration)? key|key|setting|variable|parameter|property|option)s?\s*[:=]?\s*)?["'\x60]?([A-Za-z_][A-Za-z0-9_.-]{1,80})`)
	// KeyError: 'X' (Python), key not found: "X" (Ruby's ENV.fetch), Could not resolve
	// placeholder 'X' (Spring), X: unbound variable and X: parameter null or not set (sh).
	keyError = regexp.MustCompile(`(?:KeyError: |key not found: |resolve placeholder )['"]([^'"]{1,80})['"]|\b([A-Za-z_][A-Za-z0-9_]{1,80}): (?:unbound variable|parameter null or not set|parameter not set)`)
	// codeEnvRef is an environment variable named the way code reads it, which an error quoting
	// the code's advice carries: ENV['X'] and ENV.fetch("X") (Ruby), os.environ['X'] and
	// os.getenv("X") (Python), process.env.X (Node), os.Getenv("X") (Go), System.getenv("X")
	// (Java), Environment.GetEnvironmentVariable("X") (.NET), getenv('X') (PHP, C).
	codeEnvRef = regexp.MustCompile(`(?:\bENV(?:\.fetch)?[\[(]|os\.environ(?:\.get)?[\[(]|\b[Gg]etenv\(|GetEnvironmentVariable\(|process\.env\[)\s*['"]([A-Za-z_][A-Za-z0-9_]{1,80})['"]|\bprocess\.env\.([A-Za-z_][A-Za-z0-9_]{1,80})`)
	// A setting the application judges by its value: "insecure SECRET_KEY", "a default
	// JWT_SECRET was detected".
	judgedKey = regexp.MustCompile(`(?i:\b(?:insecure|default|invalid|weak|placeholder|empty))\s+["'\x60]?([A-Z][A-Z0-9]*_[A-Z0-9_]{1,80})\b`)
	// A setting named in words: "no hostname setting provided", "hostname is not configured".
	wordKey = regexp.MustCompile(`(?i)\bno ([a-z][a-z0-9_.-]{2,40}) (?:setting|option|value|parameter) (?:was |is )?(?:provided|given|set|configured|specified)\b|\b([a-z][a-z0-9_.-]{2,40}) (?:setting |option )?(?:is|was) not (?:configured|provided|specified)\b`)
	capsKey = regexp.MustCompile(`\b([A-Z][A-Z0-9]*_[A-Z0-9_]{1,80}|[A-Z]{3,80})\b["'\x60]?\s+(?:is |was )?(?:not set|missing|required|undefined|empty|must be set)`)

	// deniedName is the object a denial names: `configmaps "inventory-flags" is forbidden`.
	deniedName = regexp.MustCompile(`\b([a-z][a-z0-9.]{0,100}) "([a-z0-9][a-z0-9.-]{0,252})" is forbidden`)
	denialRe   = regexp.MustCompile(`(?i)(?:user "([^"]{1,300})" )?cannot ([a-z]{1,30}) resource "([^"]{1,100})"(?: in api group "([^"]{0,100})")?(?: in the namespace "([^"]{1,63})"| at the cluster scope)?`)
)

// keyStopWords are words the key patterns catch that never name a setting.
var keyStopWords = map[string]bool{
	"the": true, "a": true, "an": true, "required": true, "environment": true, "variable": true, "value": true, "key": true,
	"config": true, "configuration": true, "setting": true, "field": true, "argument": true, "is": true, "for": true, "in": true,
	"of": true, "to": true, "and": true, "or": true, "not": true, "file": true, "option": true, "parameter": true, "error": true,
	"ERROR": true, "FATAL": true, "WARN": true, "INFO": true, "DEBUG": true, "PANIC": true, "HTTP": true, "GET": true, "POST": true,
}

// ScoreLine rates how much a line looks like the one that says what went wrong.
func ScoreLine(line string) (int, ErrClass) { return scoreLine(line, false) }

// scoreLine is ScoreLine for a line whose context already marks it as an error (the
// indented text under a "fail:" header).
func scoreLine(line string, inErrorEntry bool) (int, ErrClass) {
	line = clipBytes(line, maxClueLineLen)
	if strings.TrimSpace(line) == "" {
		return -10, ErrNone
	}
	if isFrame(line) {
		return -6, ErrNone
	}
	// Counters of nothing ("failed=0", "0 errors", "errors: 0") report health, not an error.
	line = zeroCounter.ReplaceAllString(line, " ")
	low := strings.ToLower(line)
	score, class := 0, ErrNone
	for _, f := range errFamilies {
		for _, n := range f.needles {
			if hasNeedle(low, n) {
				class = f.class
				break
			}
		}
		if class != ErrNone {
			break
		}
	}
	// An access log's request line answered 5xx is an error however quiet its format.
	marked := inErrorEntry || strongConfig.MatchString(line) || accessLog5xx.MatchString(line)
	if fatalMarker.MatchString(line) {
		score += 4
		marked = true
	}
	if errorMarker.MatchString(line) {
		score += 2
		marked = true
	}
	if class != ErrNone {
		// Weak families ("config", "schema") need an error marker to count; strong ones stand alone.
		switch {
		case class == ErrConfig || class == ErrSchema || class == ErrUnavail || class == ErrAuth:
			if marked || strings.Contains(low, "warn") {
				score += 5
			} else {
				class = ErrNone
			}
		default:
			score += 6
		}
	}
	if class == ErrNone && marked {
		class = ErrGeneric
	}
	if quietMarker.MatchString(line) && class == ErrNone {
		score -= 2
	} else if score > 1 && quietSeverity(line) {
		// Written at info level: an error it mentions (a handler registered for it, a
		// retry that worked) weighs less than one the application logs as an error.
		score = max(score-3, 1)
	}
	if usageLine.MatchString(line) {
		score -= 4
	}
	if exitingWords.MatchString(line) {
		score--
	}
	if strings.HasSuffix(strings.TrimSpace(line), ":") && score > 2 {
		// A header whose details follow on lines of their own ("invalid configuration:"):
		// a line that carries the details says more.
		score -= 2
	}
	return score, class
}

// ExtractClues picks the error line of a text tail and the entities it (and the other error
// lines of the same family) names. The first line of the highest score wins: the first
// error is usually the cause and later ones its consequences.
func ExtractClues(lines []string) Clue {
	if len(lines) > maxClueLines {
		lines = lines[len(lines)-maxClueLines:]
	}
	lines = flattenLines(lines)
	idx, kline, krep := knownIn(lines)
	best, bestScore, bestClass := -1, 0, ErrNone
	scores := make([]int, len(lines))
	classes := make([]ErrClass, len(lines))
	for i, l := range lines {
		scores[i], classes[i] = ScoreLine(l)
	}
	contextScores(lines, scores, classes)
	for i := range lines {
		if scores[i] > bestScore {
			best, bestScore, bestClass = i, scores[i], classes[i]
		}
	}
	var known Clue
	if idx >= 0 {
		known = Clue{KnownLine: tools.Sanitize(kline, maxClueLine, true), KnownRepeats: krep, known: idx + 1}
	}
	if best < 0 {
		return known
	}
	c := Clue{Line: tools.Sanitize(quoteWindow(lines[best], bestClass), maxClueLine, true), Class: bestClass, Score: bestScore,
		KnownLine: known.KnownLine, KnownRepeats: known.KnownRepeats, known: known.known}
	// Entities come from the best line first, then the other error lines of its family.
	// The other error lines of its entry (the links of an exception chain, the text under a
	// header) come next: they say what the error was about.
	order := []int{best}
	seen := map[int]bool{best: true}
	add := func(i int) {
		if !seen[i] {
			seen[i] = true
			order = append(order, i)
		}
	}
	for _, i := range entryOf(lines, scores, best) {
		add(i)
	}
	// Multi-line messages continue on the next lines ("Is the server running on host …").
	for i := best + 1; i < len(lines) && i <= best+2; i++ {
		if scores[i] > -6 && strings.TrimSpace(lines[i]) != "" {
			add(i)
		}
	}
	for i := range lines {
		if scores[i] > 0 && classes[i] == bestClass {
			add(i)
		}
	}
	c.Repeats = 0
	for _, i := range order {
		if scores[i] > 0 && classes[i] == bestClass {
			c.Repeats++
		}
	}
	for n, i := range order {
		if n >= 8 {
			break
		}
		c.addEntities(clipBytes(lines[i], maxClueLineLen))
	}
	c.contextHosts(lines, scores, best)
	c.addAlso(lines, scores, classes, best)
	return c
}

func (c *Clue) addEntities(line string) {
	low := strings.ToLower(line)
	addHost := func(h, port string, weak bool) {
		h = strings.Trim(h, ".-")
		if h == "" || len(h) > 253 || len(c.Hosts) >= maxEntities || ignoredHost(h) || weak && hostStopWords[h] {
			return
		}
		if port != "" && (len(port) > 5 || strings.HasPrefix(port, "0")) {
			port = ""
		}
		for i, x := range c.Hosts {
			if x.Host == h {
				if x.Port == "" {
					c.Hosts[i].Port = port
				}
				c.Hosts[i].Weak = x.Weak && weak
				return
			}
		}
		c.Hosts = append(c.Hosts, HostPort{Host: h, Port: port, Weak: weak})
	}
	for _, m := range envoyCluster.FindAllStringSubmatch(low, 2) {
		addHost(m[2], m[1], false)
	}
	// pgx names the server it dialed after its address: "10.96.212.40:5432 (ledger-db)".
	for _, m := range pgxAddr.FindAllStringSubmatch(low, 2) {
		addHost(m[2], m[1], false)
	}
	for i, re := range []*regexp.Regexp{pgServerAt, hostThenPort, javaAddr, dialHost, urlHost, lookupHost, unresolvedHost, ipPortRe, ip6PortRe, hostPortRe, keywordHost, phraseHost} {
		for _, m := range re.FindAllStringSubmatch(low, 4) {
			port := ""
			if len(m) > 2 {
				port = m[2]
			}
			if re == ip6PortRe && net.ParseIP(m[1]) == nil {
				continue
			}
			addHost(m[1], port, i >= 10) // keywordHost and phraseHost name a host loosely
		}
	}
	for _, m := range linkValue.FindAllStringSubmatch(low, 2) {
		if len(c.Links) < maxEntities {
			c.Links = append(c.Links, HostPort{Host: m[1], Port: m[2]})
		}
	}
	for _, m := range pathRe.FindAllStringSubmatchIndex(line, 4) {
		p := strings.TrimRight(line[m[2]:m[3]], ".,:;")
		if codeLocation(p, line[m[3]:]) || requestPath(p, line[:m[2]], line[m[3]:]) || !filePosition(p, line[:m[2]], line[m[3]:]) {
			continue
		}
		if len(p) <= 256 && len(c.Paths) < maxEntities && !containsStr(c.Paths, p) {
			c.Paths = append(c.Paths, p)
		}
	}
	for _, re := range []*regexp.Regexp{keyError, codeEnvRef, keyBefore, capsKey, judgedKey, wordKey, keyAfter} {
		for _, m := range re.FindAllStringSubmatch(line, 4) {
			k := strings.Trim(m[1], ".-")
			if k == "" && len(m) > 2 {
				k = m[2]
			}
			if k == "" || keyStopWords[k] || keyStopWords[strings.ToLower(k)] || len(c.Keys) >= maxEntities || containsStr(c.Keys, k) {
				continue
			}
			c.Keys = append(c.Keys, k)
		}
	}
	c.addMigration(line)
	if c.Forbidden == nil {
		// klog's structured lines quote the error in err="…", escaping its own quotes.
		if m := denialRe.FindStringSubmatch(strings.ReplaceAll(line, `\"`, `"`)); m != nil {
			d := &Denial{User: m[1], Verb: strings.ToLower(m[2]), Resource: m[3], Group: m[4], Namespace: m[5], Scope: "namespace"}
			if n := deniedName.FindStringSubmatch(strings.ReplaceAll(line, `\"`, `"`)); n != nil && strings.HasPrefix(n[1], strings.SplitN(m[3], "/", 2)[0]) {
				d.Name = n[2]
			}
			if m[5] == "" && strings.Contains(strings.ToLower(line), "cluster scope") {
				d.Scope = "cluster"
			}
			if rest, ok := strings.CutPrefix(m[1], "system:serviceaccount:"); ok {
				if sns, sa, ok := strings.Cut(rest, ":"); ok {
					d.ServiceAccount, d.SANamespace = sa, sns
					d.User = ""
					d.Namespace = orDefault(m[5], sns)
				}
			}
			c.Forbidden = d
		}
	}
	if c.Forbidden == nil {
		c.Forbidden = syncDenial(line)
	}
}

// hexLiteral is a number written in hex, never a host name.
var hexLiteral = regexp.MustCompile(`^0x[0-9a-f]*$`)

// hostStopWords are words loose wording ("could not connect to the server", "host is down")
// puts where a host would be.
var hostStopWords = map[string]bool{"the": true, "a": true, "an": true, "this": true, "that": true, "it": true, "its": true, "is": true,
	"was": true, "any": true, "all": true, "some": true, "one": true, "no": true, "not": true, "your": true, "our": true, "my": true,
	"another": true, "other": true, "same": true, "new": true, "server": true, "host": true, "remote": true, "database": true,
	"backend": true, "upstream": true, "service": true, "broker": true, "endpoint": true, "peer": true, "and": true, "or": true,
	"for": true, "with": true, "from": true, "in": true, "on": true, "at": true, "by": true, "of": true, "to": true}

// ignoredHost drops names that are never a dependency worth following.
func ignoredHost(h string) bool {
	switch h {
	case "localhost", "127.0.0.1", "0.0.0.0", "::1", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local":
		return true
	}
	if strings.Trim(h, "0123456789.") == "" && strings.Count(h, ".") != 3 {
		return true // a number, a version or a time, not a host
	}
	if hexLiteral.MatchString(h) {
		return true // a Go panic's "addr=0x0", a pointer or a hash
	}
	// File names and code locations look like hosts to the patterns ("main.go:42").
	for _, ext := range []string{".go", ".py", ".js", ".ts", ".java", ".rb", ".rs", ".yaml", ".yml", ".json", ".conf", ".log", ".txt", ".sh", ".sql", ".cs"} {
		if strings.HasSuffix(h, ext) {
			return true
		}
	}
	return false
}

// textLines are the lines of a log tail to read clues from: the long ones when they were
// fetched, else the lines as shown.
func textLines(lr tools.LogsResult) []string {
	if len(lr.Full) == len(lr.Lines) && lr.Full != nil {
		return lr.Full
	}
	return lr.Lines
}
