import { randomUUID } from 'node:crypto';
import type { Request, Response, Router } from 'express';
import { field, projectProblem, repositoryProblem } from '../forms.js';
import { formBody, refuseCrossSite, requireSession, seeOther, sendMessage, sendPage } from '../http.js';
import type { DashboardOptions } from '../http.js';
import { projectChangePage, projectPage, projectsPage, revisionPage } from '../pages/index.js';
import type { ProjectFormValues, RepositoryFormState, RunFormState } from '../pages/index.js';
import { pageOf, rowsOf } from '../paging.js';
import type { Membership, SessionView } from '../store.js';

const CHANGES = ['deactivate', 'reactivate'] as const;
/** Runs of the project its page lists. */
const RECENT_RUNS = 10;

/** An input's value as a dispatch's `input` text reads it: double-quoted, with `\"` for a quote. */
/**
 * Why the form's values would not read back as sent from a dispatch's `input` text: a value that
 * ends in a backslash (it would escape its closing quote), or a prompt that starts like one of the
 * inputs (`name=…`, which would be read as that input). Undefined when they would.
 */
function unreadable(values: Record<string, string>, prompt: string): { message: string; field?: string } | undefined {
  const names = Object.keys(values)
    .filter((name) => name.startsWith('input.'))
    .map((name) => name.slice('input.'.length));
  const ending = names.find((name) => (values[`input.${name}`] ?? '').endsWith('\\'));
  if (ending !== undefined)
    return { field: ending, message: `The value of ${ending} cannot end with a backslash: remove it or add a space.` };
  const first = /^([a-z][a-z0-9_]*)=/.exec(prompt)?.[1];
  if (first !== undefined && names.includes(first))
    return {
      message: `The prompt starts with "${first}=", which would be read as the input ${first}: start it with other words.`,
    };
  return undefined;
}

const quoted = (value: string) => `"${value.replaceAll('"', '\\"')}"`;

/** The organization's projects and their configuration revisions: everyone reads, owners change. */
export function projectRoutes(router: Router, options: DashboardOptions): void {
  const { store } = options;
  const post = [refuseCrossSite(options), formBody];
  const notFound = (res: Response, session: SessionView) =>
    sendMessage(res, 404, {
      title: 'No such project',
      message: 'The organization has no project of this slug, or no such revision.',
      link: { href: '/projects', text: 'Back to projects' },
      session,
    });
  const ownersOnly = (res: Response, session: SessionView) =>
    sendMessage(res, 403, {
      title: 'Owners only',
      message: 'Only owners of the organization create, deactivate and reactivate its projects.',
      link: { href: '/projects', text: 'Back to projects' },
      session,
    });

  /** The signed-in session and its organization when the caller owns it; otherwise an answer was sent. */
  const owned = async (
    req: Request,
    res: Response,
  ): Promise<{ session: SessionView; organization: Membership } | undefined> => {
    const signed = await requireSession(options, req, res);
    if (!signed) return undefined;
    const organization = signed.session.current;
    if (organization?.role === 'owner') return { session: signed.session, organization };
    ownersOnly(res, signed.session);
    return undefined;
  };

  const list = async (res: Response, session: SessionView, status: number, page: number, form?: ProjectFormValues) => {
    const listed = session.current
      ? await store.projects(session.current.organizationId, rowsOf(page))
      : { items: [], more: false };
    sendPage(res, status, projectsPage({ session, projects: listed.items, pages: { page, more: listed.more }, form }));
  };

  router.get('/projects', async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (signed) await list(res, signed.session, 200, pageOf(req));
  });

  router.post('/projects', ...post, async (req, res) => {
    const caller = await owned(req, res);
    if (!caller) return;
    const values = { slug: field(req.body, 'slug').trim(), name: field(req.body, 'name') };
    const problem = projectProblem(values.slug, values.name);
    if (problem) return list(res, caller.session, 422, 1, { ...values, message: problem });
    const outcome = await store.createProject(caller.session.account.id, caller.organization.organizationId, {
      slug: values.slug,
      name: values.name.trim(),
    });
    if (outcome === 'forbidden') return ownersOnly(res, caller.session);
    if (outcome === 'invalid')
      return list(res, caller.session, 422, 1, {
        ...values,
        message: "The project's name contains a character the hub cannot store.",
      });
    if (outcome === 'taken')
      return list(res, caller.session, 409, 1, {
        ...values,
        message: `The organization already has a project with the slug ${values.slug}: choose another.`,
      });
    seeOther(res, `/projects/${encodeURIComponent(values.slug)}`);
  });

  /** The project page; with `runForm`, a Run form sent back with what held its run back. */
  const show = async (
    req: Request,
    res: Response,
    session: SessionView,
    status: number,
    runForm?: RunFormState,
    repositoryForm?: RepositoryFormState,
  ) => {
    const organizationId = session.current?.organizationId;
    const slug = String(req.params.slug);
    const project = organizationId === undefined ? undefined : await store.project(organizationId, slug);
    if (organizationId === undefined || !project) return notFound(res, session);
    const page = pageOf(req);
    const [history, active, triggers, recentRuns] = await Promise.all([
      store.revisions(organizationId, slug, rowsOf(page)),
      project.activeVersion === null ? undefined : store.revision(organizationId, slug, project.activeVersion),
      store.projectTriggers(organizationId, slug),
      store.projectRuns(organizationId, slug, RECENT_RUNS),
    ]);
    const pages = { page, more: history.more };
    const deliveryKey = `dashboard-${randomUUID()}`;
    const props = { session, project, active, revisions: history.items, pages, triggers, recentRuns, deliveryKey };
    const githubWebUrl = store.githubSettings()?.webUrl;
    sendPage(res, status, projectPage({ ...props, runForm, githubWebUrl, repositoryForm }));
  };

  router.get('/projects/:slug', async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (signed) await show(req, res, signed.session, 200);
  });

  // A run from a trigger's Run form: any member may start one, as a key with runs:dispatch may.
  router.post('/projects/:slug/runs', ...post, async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (!signed) return;
    const { session } = signed;
    const organizationId = session.current?.organizationId;
    if (organizationId === undefined) return notFound(res, session);
    const values = Object.fromEntries(
      Object.entries(req.body as Record<string, unknown>).filter(
        (entry): entry is [string, string] => typeof entry[1] === 'string',
      ),
    );
    const trigger = values.trigger ?? '';
    const inputs = Object.entries(values)
      .filter(([name, value]) => name.startsWith('input.') && value !== '')
      .map(([name, value]) => `${name.slice('input.'.length)}=${quoted(value)}`);
    const prompt = (values.prompt ?? '').trim();
    // What the dispatch's input text cannot carry is refused here, not read some other way.
    const unsafe = unreadable(values, prompt);
    if (unsafe !== undefined)
      return show(req, res, session, 422, { trigger, values, message: unsafe.message, field: unsafe.field });
    const result = await store.dispatchRun(session.account.id, organizationId, String(req.params.slug), {
      trigger,
      actor: values.actor ?? '',
      input: [...inputs, prompt].filter((part) => part !== '').join(' '),
      deliveryKey: values.deliveryKey || `dashboard-${randomUUID()}`,
    });
    if (result.ok) return seeOther(res, `/runs/${encodeURIComponent(result.runId)}`);
    await show(req, res, session, result.status, { trigger, values, message: result.message, field: result.field });
  });

  // The project's GitHub repository: the operator API's rules (owner/name, one project per repository).
  router.post('/projects/:slug/repository', ...post, async (req, res) => {
    const caller = await owned(req, res);
    if (!caller) return;
    const value = field(req.body, 'repository').trim();
    const refuse = (status: number, message: string) =>
      show(req, res, caller.session, status, undefined, { value, message });
    const problem = repositoryProblem(value);
    if (problem) return refuse(422, problem);
    const outcome = await store.setProjectRepository(
      caller.session.account.id,
      caller.organization.organizationId,
      String(req.params.slug),
      value === '' ? null : value,
    );
    if (outcome === 'not_found') return notFound(res, caller.session);
    if (outcome === 'forbidden') return ownersOnly(res, caller.session);
    if (outcome === 'invalid') return refuse(422, 'The hub could not accept this repository: check it.');
    if (typeof outcome === 'object')
      return refuse(
        409,
        outcome.taken === undefined
          ? `A project of another organization on this hub names ${value}: a repository belongs to one project.`
          : `The project ${outcome.taken} names ${value} already: a repository belongs to one project. Clear it there first.`,
      );
    seeOther(res, `/projects/${encodeURIComponent(String(req.params.slug))}#github`);
  });

  router.get('/projects/:slug/revisions/:version', async (req, res) => {
    const signed = await requireSession(options, req, res);
    if (!signed) return;
    const { session } = signed;
    const organizationId = session.current?.organizationId;
    const slug = String(req.params.slug);
    const version = /^[1-9][0-9]{0,8}$/.test(String(req.params.version)) ? Number(req.params.version) : undefined;
    const project =
      organizationId === undefined || version === undefined ? undefined : await store.project(organizationId, slug);
    const revision =
      project && version !== undefined ? await store.revision(organizationId as string, slug, version) : undefined;
    if (!project || !revision) return notFound(res, session);
    sendPage(res, 200, revisionPage({ session, project, revision }));
  });

  for (const change of CHANGES) {
    router.get(`/projects/:slug/${change}`, async (req, res) => {
      const caller = await owned(req, res);
      if (!caller) return;
      const project = await store.project(caller.organization.organizationId, String(req.params.slug));
      if (!project) return notFound(res, caller.session);
      if (project.active === (change === 'reactivate'))
        return seeOther(res, `/projects/${encodeURIComponent(project.slug)}`);
      sendPage(res, 200, projectChangePage({ session: caller.session, project, change }));
    });

    router.post(`/projects/:slug/${change}`, ...post, async (req, res) => {
      const caller = await owned(req, res);
      if (!caller) return;
      const outcome = await store.setProjectActive(
        caller.session.account.id,
        caller.organization.organizationId,
        String(req.params.slug),
        change === 'reactivate',
      );
      if (outcome === 'not_found') return notFound(res, caller.session);
      if (outcome === 'forbidden') return ownersOnly(res, caller.session);
      seeOther(res, '/projects');
    });
  }
}
