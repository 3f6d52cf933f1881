package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"

	"google.golang.org/grpc"
)

// profileWorker starts a CPU profile of the worker process into dir and counts the gRPC calls
// it makes by method; stop writes both (cpu-QUEUE.pprof, rpcs-QUEUE.txt), so a row's worker
// CPU can be split into where it goes and what the server was asked.
func profileWorker(dir, taskQueue string) (grpc.DialOption, func(), error) {
	f, err := os.Create(filepath.Join(dir, "cpu-"+taskQueue+".pprof"))
	if err != nil {
		return nil, nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		return nil, nil, err
	}
	var mu sync.Mutex
	calls := map[string]int{}
	count := func(method string) {
		mu.Lock()
		calls[method]++
		mu.Unlock()
	}
	unary := func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		count(method)
		return invoker(ctx, method, req, reply, cc, opts...)
	}
	stop := func() {
		pprof.StopCPUProfile()
		_ = f.Close()
		mu.Lock()
		defer mu.Unlock()
		var lines []string
		for m, n := range calls {
			lines = append(lines, fmt.Sprintf("%8d %s", n, m[strings.LastIndexByte(m, '/')+1:]))
		}
		sort.Strings(lines)
		_ = os.WriteFile(filepath.Join(dir, "rpcs-"+taskQueue+".txt"), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	}
	return grpc.WithChainUnaryInterceptor(unary), stop, nil
}
