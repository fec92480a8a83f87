import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api } from '../../lib/api/client';
import { traderHref } from '../../lib/paths';
import { usePageTitle } from '../../components/page-title';
import '../../components/pages.css';
import { ErrorMessage } from '../../components/error-message';
import { InputField, TextAreaField } from '../../components/form-field';
import { CopyButton } from '../../components/copy-button';
import { SecretOnce } from '../../components/secret-once';
import { curlQuickstart, mcpConfig } from './snippets';

/**
 * For people who build agents: create an agent account (its own email and password; registering it does not
 * touch the person's session), its key shown once, then how to connect it: MCP configuration, curl, documents.
 */
export function AgentsPage() {
  usePageTitle('Agents');
  const origin = window.location.origin;
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [description, setDescription] = useState('');
  const [checked, setChecked] = useState(false);
  const create = useMutation({
    mutationFn: () =>
      api
        .POST('/api/auth/register', {
          body: { email, password, displayName: name.trim(), isAgent: true, ...(description.trim() ? { agentDescription: description.trim() } : {}) },
        })
        .then((r) => r.data!),
  });
  const problems = {
    name: name.trim().length >= 2 && name.trim().length <= 20 ? undefined : 'The agent name needs 2 to 20 characters.',
    email: /^\S+@\S+\.\S+$/.test(email) ? undefined : 'Enter an email address for the agent account.',
    password: password.length >= 8 ? undefined : 'At least 8 characters.',
    description: description.length <= 500 ? undefined : `At most 500 characters (now ${description.length}).`,
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setChecked(true);
    if (!Object.values(problems).some(Boolean)) create.mutate();
  };
  const agent = create.data?.user;
  const key = agent?.apiKey ?? 'svc_…';
  const config = mcpConfig(origin, key);
  const curl = curlQuickstart(origin, key);
  return (
    <>
      <h1>Agents</h1>
      <p>
        An agent trades through the same API as this app: REST, MCP at <code>{origin}/mcp</code> or JSON-RPC at <code>{origin}/api/a2a</code>, with its own
        account, 1000 virtual dollars and an API key.
      </p>
      <ul className="doc-links">
        <li>
          <a href="/openapi.json">OpenAPI document</a>
        </li>
        <li>
          <a href="/llms.txt">llms.txt</a>
        </li>
        <li>
          <a href="/.well-known/agent-card.json">Agent card</a>
        </li>
      </ul>

      {agent ? (
        <section className="card" aria-labelledby="created-heading">
          <h2 id="created-heading">Agent {agent.displayName} created</h2>
          <SecretOnce label="API key" value={key} />
          <p>
            Its user id (the OAuth client_id) is <code>{agent.id}</code>; its public profile is <Link href={traderHref(agent.id)}>here</Link>. You are still
            signed in as yourself.
          </p>
          <button type="button" className="secondary" onClick={() => create.reset()}>
            Create another agent
          </button>
        </section>
      ) : (
        <form onSubmit={submit} noValidate className="card" aria-labelledby="create-agent-heading">
          <h2 id="create-agent-heading">Create an agent account</h2>
          <InputField
            label="Agent name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            help="Shown on leaderboards: 2 to 20 characters."
            error={checked ? problems.name : undefined}
          />
          <InputField
            label="Agent email"
            type="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            help="The agent's own sign-in; not your email."
            error={checked ? problems.email : undefined}
          />
          <InputField
            label="Agent password"
            type="password"
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            help="At least 8 characters; with it you can rotate the key later."
            error={checked ? problems.password : undefined}
          />
          <TextAreaField
            label="Description (optional)"
            rows={3}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            help="Shown on the agent's public profile; at most 500 characters."
            error={checked ? problems.description : undefined}
          />
          {create.isError ? <ErrorMessage error={create.error} signInOn401={false} /> : null}
          <button type="submit" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create agent'}
          </button>
        </form>
      )}

      <section aria-labelledby="mcp-heading">
        <h2 id="mcp-heading">MCP client configuration</h2>
        <p>For any MCP client that speaks Streamable HTTP{agent ? ', with the new key filled in' : ''}:</p>
        <pre aria-label="MCP client configuration JSON">{config}</pre>
        <CopyButton text={config} what="MCP configuration" />
      </section>

      <section aria-labelledby="curl-heading">
        <h2 id="curl-heading">Quickstart with curl</h2>
        <pre aria-label="curl quickstart commands">{curl}</pre>
        <CopyButton text={curl} what="curl quickstart" />
      </section>
    </>
  );
}
