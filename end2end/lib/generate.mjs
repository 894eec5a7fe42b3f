// Generates a synthetic stack export (v3) of any size: a stack, providers, nested components
// and custom resources with provider references and dependencies, as Pulumi writes them.
export function generateStack(count, { project = 'bench', stack = 'dev', seed = 1 } = {}) {
  let state = seed;
  const rand = (n) => { state = (state * 1103515245 + 12345) % 2147483648; return state % n; };
  const urn = (qualified, name) => `urn:pulumi:${stack}::${project}::${qualified}::${name}`;
  const resources = [];
  const stackUrn = urn('pulumi:pulumi:Stack', `${project}-${stack}`);
  resources.push({ urn: stackUrn, custom: false, type: 'pulumi:pulumi:Stack' });
  const providers = ['aws', 'random', 'tls'].map((pkg, i) => {
    const u = urn(`pulumi:providers:${pkg}`, `default_${i + 1}_0_0`);
    const id = `0000000${i}-1111-2222-3333-444444444444`;
    resources.push({ urn: u, custom: true, id, type: `pulumi:providers:${pkg}`, inputs: {}, outputs: {} });
    return `${u}::${id}`;
  });
  const components = [];
  const nComponents = Math.max(1, Math.floor(count / 100));
  for (let i = 0; i < nComponents && resources.length < count; i++) {
    const parent = i < 10 || components.length === 0 ? { urn: stackUrn, q: 'pulumi:pulumi:Stack' } : components[rand(Math.min(components.length, 10))];
    const q = `${parent.q}$bench:index:Service`;
    const u = urn(q, `svc-${i}`);
    resources.push({ urn: u, custom: false, type: 'bench:index:Service', parent: parent.urn });
    components.push({ urn: u, q });
  }
  const types = ['aws:s3/bucket:Bucket', 'aws:ec2/instance:Instance', 'random:index/randomPet:RandomPet', 'tls:index/privateKey:PrivateKey'];
  const customs = [];
  for (let i = 0; resources.length < count; i++) {
    const parent = components[rand(components.length)];
    const type = types[i % types.length];
    const u = urn(`${parent.q}$${type}`, `res-${i}`);
    const deps = customs.length > 0 && rand(3) === 0 ? [customs[rand(customs.length)]] : [];
    resources.push({
      urn: u, custom: true, id: `id-${i}`, type, parent: parent.urn,
      provider: providers[i % types.length === 2 ? 1 : i % types.length === 3 ? 2 : 0],
      inputs: { name: `res-${i}`, tags: { team: `t${i % 7}` } },
      outputs: { name: `res-${i}`, arn: `arn:bench:${i}` },
      dependencies: deps,
    });
    customs.push(u);
  }
  return { version: 3, deployment: { manifest: { time: new Date(0).toISOString(), magic: '', version: 'bench' }, resources } };
}

export async function uploadStack(base, name, state) {
  const headers = process.env.FERRY_E2E_TOKEN ? { authorization: `Bearer ${process.env.FERRY_E2E_TOKEN}` } : {};
  const response = await fetch(`${base}/api/v1/stacks?name=${encodeURIComponent(name)}`, { method: 'POST', headers, body: JSON.stringify(state) });
  const body = await response.json();
  if (!response.ok) throw new Error(`upload failed: ${JSON.stringify(body)}`);
  return body;
}

/** An import spec of `count` RandomIntegers named `<prefix>-<i>`, each read back as
 *  `<result>,<min>,<max>`: what the benchmarks import into their generated stacks. */
export function importSpec(count, prefix) {
  return { resources: Array.from({ length: count }, (_, i) => ({ type: 'random:index/randomInteger:RandomInteger', name: `${prefix}-${i}`, id: `${i % 1000},0,1000` })) };
}
