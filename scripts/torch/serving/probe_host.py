import sys, time, json, os
sys.argv=['x']
sys.path.insert(0,'scripts/torch/serving'); sys.path.insert(0,'scripts/torch')
import torch, cb_engine as cb
cfg=json.load(open('models/presets/llama-3-8b.json'))
m=cb.Model(cfg, 2048)
def step(n, ctxmgr=True):
    z=torch.zeros(n,dtype=torch.long,device='cuda')
    args=(z, torch.arange(n,device='cuda'), z, 0, torch.zeros(0,1,dtype=torch.int32,device='cuda'),
          torch.zeros(0,dtype=torch.int32,device='cuda'), [(0,n)], torch.tensor([n-1],device='cuda'))
    torch.cuda.synchronize(); t=time.perf_counter(); m.forward(*args); th=time.perf_counter()-t
    torch.cuda.synchronize(); tw=time.perf_counter()-t
    return th*1e3, tw*1e3
for n in [512, 455, 455, 210, 210, 333, 600, 600]:
    print('n', n, 'host %.2f ms wall %.2f ms' % step(n))
cb._GQA_OK[0]=True
orig=cb.prefill_attention
def nocm(q,k,v):
    return torch.nn.functional.scaled_dot_product_attention(q,k,v,is_causal=True,enable_gqa=True)
cb.prefill_attention=nocm
for n in [455, 210, 333]:
    print('no-ctx n', n, 'host %.2f ms wall %.2f ms' % step(n))
