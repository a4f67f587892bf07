"""Run the Java, Go and robotexclusionrulesparser direct reproducers of the
write-ups in reports/findings/ (written by `cargo xtask findings`) in their
own runtimes, against the libraries setup installed, and check each prints
the outcome its ledger entry pins. Exit 1 when one does not.

    python3 cases/tools/verify-reproducers.py      # after cargo xtask setup

The other oracles' reproducers are not run here yet (issue 30).
"""
import glob, os, re, shutil, subprocess, sys, tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
C = os.environ.get("REPDIFF_CACHE", os.path.join(ROOT, ".cache"))
WORK = tempfile.mkdtemp(prefix="repdiff-repro-")
files = sorted(glob.glob(os.path.join(ROOT, "reports/findings/*.md")))
def which(code):
    first=code.splitlines()[0]
    if 'crawler-commons 1.6' in first: return 'java','crawler-commons'
    if 'crawler-commons 1.4' in first: return 'java','crawler-commons-1.4'
    if 'heritrix-modules' in first: return 'java','heritrix'
    if 'temoto' in first: return 'go','github.com/temoto/robotstxt v1.1.2'
    if 'grobotstxt' in first: return 'go','github.com/jimsmart/grobotstxt v1.0.3'
    if 'robotexclusionrulesparser' in first: return 'py',None
    return None,None
def same(out,want):
    return out==want or (out,want) in {('True','allowed'),('False','disallowed'),('None','value:none')} or (want.startswith('error:') and out.startswith('error: '+want[6:]))
n=bad=0
for f in files:
    t=open(f).read()
    i=t.find('## Direct reproducer')
    if i<0: continue
    for lang,code in re.findall(r'```(\w+)\n(.*?)```',t[i:],re.S):
        kind,arg=which(code)
        if not kind: continue
        d=WORK+'/'+os.path.basename(f)[:-3]+'-'+(arg or kind).split()[0].replace('/','_')
        shutil.rmtree(d,ignore_errors=True); os.makedirs(d)
        env=dict(os.environ)
        if kind=='java':
            open(d+'/Repro.java','w').write(code)
            cmd=['java','-Dfile.encoding=UTF-8','-cp',f'{C}/jvm/{arg}/lib/*','Repro.java']
        elif kind=='go':
            open(d+'/main.go','w').write(code)
            open(d+'/go.mod','w').write(f'module repro\n\ngo 1.21\n\nrequire {arg}\n')
            env.update(GOMODCACHE=C+'/gomod',GOCACHE=C+'/gobuild',GOPROXY='off',GOSUMDB='off',GOFLAGS='-mod=mod',GOTOOLCHAIN='local')
            cmd=['go','run','.']
        else:
            open(d+'/repro.py','w').write(code)
            cmd=[C+'/venv-robotexclusionrulesparser/bin/python','repro.py']
        p=subprocess.run(cmd,cwd=d,env=env,capture_output=True,text=True,timeout=300)
        want=re.search(r'this library answers: (.+)',code).group(1).strip()
        out=(p.stdout.strip().splitlines() or ['<none>'])[-1]
        n+=1
        if not any(same(l.strip(),want) for l in (p.stdout.strip().splitlines() or ['<none>'])):
            bad+=1
            print('DIFF', os.path.basename(f), arg or kind, 'printed', repr(out), 'pinned', repr(want), p.stderr[-400:].replace('\n',' '))
print(f'{n} reproducers run, {bad} differ')
shutil.rmtree(WORK, ignore_errors=True)
sys.exit(1 if bad or not n else 0)
