import { h } from 'preact';
import type { DaemonsPageProps, RetireDaemonPageProps, RunPageProps, RunsPageProps } from './daemons-runs-props.js';
import { DaemonsPage, RetireDaemonPage } from './daemons.js';
import { renderPage } from './render.js';
import { RunPage, RunsPage } from './runs.js';

// The daemons and runs pages, as pages/index.ts gives the others: plain data in, HTML out.
export type * from './daemons-runs-props.js';

export const daemonsPage = (props: DaemonsPageProps): string => renderPage(h(DaemonsPage, props));
export const retireDaemonPage = (props: RetireDaemonPageProps): string => renderPage(h(RetireDaemonPage, props));
export const runsPage = (props: RunsPageProps): string => renderPage(h(RunsPage, props));
export const runPage = (props: RunPageProps): string => renderPage(h(RunPage, props));
