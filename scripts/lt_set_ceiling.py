#!/usr/bin/env python3
# Diagnostic on held-out shapes (chooses nothing): oracle ceilings of the greedy dominating set, and of the set plus
# heuristic #0, for the gemm-cublaslt sweeps (models/tune/README.md). Run from the repository root; no numpy needed.
import gzip, csv, math
def load(path):
    shapes=[]; cfgidx={}; cfgs=[]; us={}; h0={}; h0cfg={}
    prev={}
    with gzip.open(path,'rt') as f:
        lines=(l for l in f if not l.startswith('#'))
        r=csv.DictReader(lines)
        for row in r:
            for k,v in row.items():
                if v=='' and k in ('m','n','k','source') : row[k]=prev.get(k,'')
            prev.update({k:row[k] for k in ('m','n','k','source')})
            s=int(row['shape'])
            if s not in us: us[s]={}; shapes.append((s,int(row['m']),int(row['n']),int(row['k'])))
            c=row['config']
            t=float(row['us']) if row['status']=='ok' and row['us'] else float('nan')
            if c=='heuristic0': h0[s]=t; continue
            if c not in cfgidx:
                cfgidx[c]=len(cfgs); cfgs.append(row)
            ci=cfgidx[c]; us[s][ci]=t
            if row['heur_rank']=='0': h0cfg[s]=ci
    nc=len(cfgs)
    full=[sh for sh in shapes if len(us[sh[0]])==nc]
    grid=[[us[sh[0]].get(i,float('nan')) for i in range(nc)] for sh in full]
    return dict(shapes=[sh[1:] for sh in full], cfgs=[c['config'] for c in cfgs], cfgrows=cfgs, us=grid,
                h0=[h0.get(sh[0],float('nan')) for sh in full], h0cfg=[h0cfg.get(sh[0],-1) for sh in full])
M64=(1<<64)-1
def fnv(s):
    h=1469598103934665603
    for v in s: h=((h^v)*1099511628211)&M64
    return h
def select(shapes,frac):
    n=len(shapes); order=sorted(range(n),key=lambda i:(shapes[i][0],fnv(shapes[i])))
    take=min(n,max(1,round(frac*n))); samp=[False]*n
    for i in range(take): samp[order[(2*i+1)*n//(2*take)]]=True
    return samp
fin=lambda x: x==x and x!=float('inf')
def best(row): return min(x for x in row if fin(x))
def greedy_set(d, idx, K):
    # minimize sum log(min over set / best) on shapes idx; missing -> penalty log(h0/best) (fallback)
    us=d['us']; S=[]
    cur=[math.log(d['h0'][s]/best(us[s])) if fin(d['h0'][s]) else 1.0 for s in idx]
    for _ in range(K):
        bc=None; bl=sum(cur)
        for c in range(len(d['cfgs'])):
            if c in S: continue
            l=0
            for j,s in enumerate(idx):
                x=us[s][c]
                l+=min(cur[j], math.log(x/best(us[s]))) if fin(x) else cur[j]
            if l<bl-1e-12: bl=l; bc=c
        if bc is None: break
        S.append(bc)
        for j,s in enumerate(idx):
            x=us[s][bc]
            if fin(x): cur[j]=min(cur[j],math.log(x/best(us[s])))
    return S
def oracle_set(d, idx, S):
    r=[]
    for s in idx:
        b=best(d['us'][s]); v=[d['us'][s][c] for c in S if fin(d['us'][s][c])]
        r.append(min(v)/b if v else d['h0'][s]/b)
    return math.exp(sum(map(math.log,r))/len(r))

if __name__ == '__main__':
    gm = lambda x: math.exp(sum(map(math.log, x)) / len(x))
    for g in ('h200', 'h100-sxm'):
        d = load(f'traces/tune/{g}/cublaslt-sweep.csv.gz')
        for frac in (0.05, 0.10, 0.25):
            samp = select(d['shapes'], frac)
            si = [i for i, b in enumerate(samp) if b]; hi = [i for i, b in enumerate(samp) if not b]
            S = greedy_set(d, si, 24); r = []; h = []
            for s in hi:
                b = best(d['us'][s]); v = [d['us'][s][c] for c in S if fin(d['us'][s][c])]
                h0 = d['h0'][s] if fin(d['h0'][s]) else float('inf')
                r.append(min(v + [h0]) / b); h.append(max(1, h0 / b) if fin(h0) else 1)
            print(g, frac, len(si), 'set', len(S), 'set-only', round(oracle_set(d, hi, S), 3),
                  'set+h0', round(gm(r), 3), 'h0', round(gm(h), 3))
