// Daemons have an owner (issue 24), in the dashboard of a real hub: the daemons page says who
// enrolled each daemon (a person, or an API key by name and prefix); the confirmations of a
// member's removal and of leaving name the daemons it retires; then in Chromium the owner removes
// the member and the member's daemons are retired (and refused).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardStore } from '../../server/src/dashboard/store.js';
import { cliLogin } from '../../server/test/support/cli-login.js';
import { TestDaemon } from '../../server/test/support/daemon.js';
import { hubOn } from '../../server/test/support/hub.js';
import { browsable, launchBrowser, shoot } from './support/browser.js';
import { arrange, page, type Hub } from './support/hub-session.js';

/** The table row that names `name`, as HTML. */
const rowOf = (html: string, name: string) => html.split('<tr').find((row) => row.includes(name)) ?? '';
const text = async (response: Response) => {
  expect(response.status).toBe(200);
  return response.text();
};

describe('who enrolled each daemon, and what a removal retires, on a real hub', () => {
  let hub: Hub;
  let owner = '';
  let member = '';
  let key = '';
  let orgId = '';
  let ada = '';
  let mia = '';
  const daemons: TestDaemon[] = [];

  beforeAll(async () => {
    hub = await hubOn('external');
    ({ owner, member, key } = await arrange(hub));
    const [org] = await hub.sql<{ id: string }[]>`select id from organizations where slug = 'acme'`;
    orgId = org?.id as string;
    const accounts = await hub.sql<{ id: string; email: string }[]>`select id, email from accounts`;
    ada = accounts.find((row) => row.email === 'ada@example.com')?.id as string;
    mia = accounts.find((row) => row.email === 'mia@example.com')?.id as string;
  }, 120_000);
  afterAll(async () => {
    for (const daemon of daemons) daemon.stop();
    await hub?.close();
  });

  /** `hub login` of `account`, approved through the dashboard's store: the CLI credential. */
  const login = (account: string): Promise<string> => cliLogin(hub, dashboardStore(hub.sql), account, orgId);
  const enroll = async (credential: string, name: string) => {
    const daemon = await TestDaemon.enroll(hub, credential, name, [{ provider: 'claude' }]);
    daemons.push(daemon);
    return daemon;
  };

  it('shows who enrolled each daemon, and names the daemons a removal or leaving retires', async () => {
    await enroll(await login(ada), 'dev-box');
    await enroll(key, 'ci-1');
    const miaCli = await login(mia);
    await enroll(miaCli, 'mia-box');
    await enroll(miaCli, 'mia-ci');

    const listed = await text(await page(hub, '/daemons', member));
    expect(listed).toContain('<th scope="col">Enrolled by</th>');
    expect(rowOf(listed, '<code>dev-box</code>')).toContain('<span class="enrolled-by">Ada</span>');
    expect(rowOf(listed, '<code>mia-box</code>')).toContain('<span class="enrolled-by">Mia</span>');
    expect(rowOf(listed, '<code>ci-1</code>')).toContain(`API key ops <code class="muted">${key.slice(0, 15)}…</code>`);

    const removal = await text(await page(hub, `/members/${mia}/remove`, owner));
    expect(removal).toContain('Removing Mia also retires the daemons they enrolled:');
    expect(removal).toContain('<code>mia-box</code>');
    expect(removal).toContain('<code>mia-ci</code>');
    expect(removal).not.toContain('<code>dev-box</code>');
    const leaving = await text(await page(hub, '/members/leave', member));
    expect(leaving).toContain('Leaving also retires the daemons you enrolled:');
    expect(leaving).toContain('<code>mia-box</code>');
    // Ada, the only owner, cannot leave: her page says why, and offers no leaving (nor what it would retire).
    const ownerLeaving = await text(await page(hub, '/members/leave', owner));
    expect(ownerLeaving).toContain('You are the only owner');
    expect(ownerLeaving).not.toContain('retires the daemon');
  });

  it.skipIf(!browsable)(
    'removes the member in Chromium after naming their daemons, which are then retired and refused',
    async () => {
      const browser = await launchBrowser();
      try {
        const memberContext = await browser.newContext();
        const [memberName, memberValue] = member.split('=') as [string, string];
        await memberContext.addCookies([{ name: memberName, value: memberValue, url: hub.url }]);
        const leaving = await memberContext.newPage();
        await leaving.goto(`${hub.url}/members`);
        await Promise.all([leaving.waitForURL(/\/leave$/), leaving.click('a[href="/members/leave"]')]);
        expect(await leaving.textContent('.daemons-retired')).toContain(
          'Leaving also retires the daemons you enrolled',
        );
        await shoot(leaving, 'leave-daemons');
        await memberContext.close();

        const context = await browser.newContext();
        const [name, value] = owner.split('=') as [string, string];
        await context.addCookies([{ name, value, url: hub.url }]);
        const tab = await context.newPage();
        const refused: string[] = [];
        tab.on('console', (message) => message.type() === 'error' && refused.push(message.text()));
        await tab.goto(`${hub.url}/daemons`);
        await shoot(tab, 'daemons-enrolled-by');
        await tab.goto(`${hub.url}/members`);
        await shoot(tab, 'members-with-daemons');
        await Promise.all([tab.waitForURL(/\/remove$/), tab.click(`a[href="/members/${mia}/remove"]`)]);
        expect(await tab.textContent('.daemons-retired')).toContain(
          'Removing Mia also retires the daemons they enrolled',
        );
        await shoot(tab, 'remove-member-daemons');
        await Promise.all([tab.waitForURL(/\/members$/), tab.click('form[action$="/remove"] button[type=submit]')]);
        expect(await tab.textContent('main')).not.toContain('mia@example.com');
        await tab.goto(`${hub.url}/daemons?retired=1`);
        expect(await tab.textContent('table.daemons')).toContain('mia-box');
        expect(rowOf(await tab.content(), '<code>mia-box</code>')).toContain('retired');
        await shoot(tab, 'daemons-member-removed');

        const [miaBox, miaCi, devBox] = ['mia-box', 'mia-ci', 'dev-box'].map(
          (wanted) => daemons.find((daemon) => daemon.name === wanted) as TestDaemon,
        );
        expect((await miaBox?.heartbeat())?.status).toBe(401);
        expect((await miaCi?.heartbeat())?.status).toBe(401);
        expect((await devBox?.heartbeat())?.status).toBe(200);
        expect(refused).toEqual([]);
        await context.close();
      } finally {
        await browser.close();
      }
    },
    90_000,
  );
});
