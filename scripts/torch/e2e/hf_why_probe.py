import os, sys, time, statistics, torch
sys.path.insert(0, 'scripts/torch/e2e'); sys.path.insert(0, 'scripts/torch')
import hf_host, hf_eager
from torch.profiler import profile, ProfilerActivity
torch.set_grad_enabled(False)
def run(layers, tag):
    m = hf_host.build(layers)
    ids = torch.randint(0, 1024, (1, 128), device="cuda")
    out = hf_eager.forward(m, ids); cache, nxt = out.past_key_values, out.logits[:, -1:].argmax(-1)
    for _ in range(5): nxt = hf_eager.forward(m, nxt, cache).logits[:, -1:].argmax(-1)
    torch.cuda.synchronize()
    ts = []
    for _ in range(10):
        t = time.perf_counter(); nxt = hf_eager.forward(m, nxt, cache).logits[:, -1:].argmax(-1)
        torch.cuda.synchronize(); ts.append((time.perf_counter()-t)*1e3)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(3): nxt = hf_eager.forward(m, nxt, cache).logits[:, -1:].argmax(-1)
        torch.cuda.synchronize()
    print("=== %s layers %d: decode step %.2f ms (median)" % (tag, layers, statistics.median(ts)), flush=True)
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=14), flush=True)
    del m
run(8, "first model")
run(8, "second model")
run(16, "third model")
