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

package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"sync"
	"time"

	kmcp "github.com/kubage/kubage/internal/tools/mcp"
)

// Pool keeps MCP sessions open between the registries of successive steps and tasks. A
// registry takes a server's session, with the tools it listed, from the pool when one of
// the same configuration (URL, transport, headers, timeout) is idle there, and gives it
// back when it closes; so a step pays no connection, initialize and tools/list when the
// step before it used the server. A session that failed is closed, never given back; an
// idle one is closed after IdleTimeout, which also bounds how stale its tool list gets.
type Pool struct {
	// IdleTimeout is how long an unused session is kept (DefaultPoolIdleTimeout when zero).
	IdleTimeout time.Duration
	// MaxIdlePerServer bounds the idle sessions kept per configuration (4 when zero).
	MaxIdlePerServer int
	// Now is the clock (time.Now when nil).
	Now func() time.Time

	mu   sync.Mutex
	idle map[string][]pooledSession
}

// DefaultPoolIdleTimeout is a Pool's IdleTimeout when it leaves it zero.
const DefaultPoolIdleTimeout = 2 * time.Minute

type pooledSession struct {
	sess  *kmcp.Session
	tools []kmcp.Tool
	at    time.Time
}

func (p *Pool) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

// poolKey identifies a configuration: sessions are shared only between identical ones.
func poolKey(serverKey string, cfg kmcp.Config) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%d\x00%d\x00%d\x00%d\x00", serverKey, cfg.URL, cfg.Transport, cfg.Timeout, cfg.MaxResponseBytes, cfg.MaxTools, cfg.MaxPages)
	names := make([]string, 0, len(cfg.Headers))
	for k := range cfg.Headers {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(h, "%s\x00%s\x00", k, cfg.Headers[k])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// take returns an idle session of the configuration and its tools, if there is one.
func (p *Pool) take(key string) (*kmcp.Session, []kmcp.Tool, bool) {
	expired := p.expire()
	defer closeAll(expired)
	p.mu.Lock()
	defer p.mu.Unlock()
	list := p.idle[key]
	if len(list) == 0 {
		return nil, nil, false
	}
	last := list[len(list)-1]
	p.idle[key] = list[:len(list)-1]
	return last.sess, last.tools, true
}

// put gives a healthy session back; one too many is closed.
func (p *Pool) put(key string, sess *kmcp.Session, tools []kmcp.Tool) {
	max := p.MaxIdlePerServer
	if max <= 0 {
		max = 4
	}
	p.mu.Lock()
	if p.idle == nil {
		p.idle = map[string][]pooledSession{}
	}
	if len(p.idle[key]) >= max {
		p.mu.Unlock()
		sess.Close()
		return
	}
	p.idle[key] = append(p.idle[key], pooledSession{sess: sess, tools: tools, at: p.now()})
	p.mu.Unlock()
	closeAll(p.expire())
}

// expire removes the sessions idle for longer than IdleTimeout and returns them.
func (p *Pool) expire() []*kmcp.Session {
	ttl := p.IdleTimeout
	if ttl <= 0 {
		ttl = DefaultPoolIdleTimeout
	}
	cutoff := p.now().Add(-ttl)
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*kmcp.Session
	for key, list := range p.idle {
		kept := list[:0]
		for _, ps := range list {
			if ps.at.Before(cutoff) {
				out = append(out, ps.sess)
				continue
			}
			kept = append(kept, ps)
		}
		if len(kept) == 0 {
			delete(p.idle, key)
		} else {
			p.idle[key] = kept
		}
	}
	return out
}

// Close closes every idle session.
func (p *Pool) Close() {
	p.mu.Lock()
	var all []*kmcp.Session
	for _, list := range p.idle {
		for _, ps := range list {
			all = append(all, ps.sess)
		}
	}
	p.idle = nil
	p.mu.Unlock()
	closeAll(all)
}

// Idle is the number of idle sessions held.
func (p *Pool) Idle() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, list := range p.idle {
		n += len(list)
	}
	return n
}

func closeAll(sessions []*kmcp.Session) {
	for _, s := range sessions {
		go s.Close()
	}
}
