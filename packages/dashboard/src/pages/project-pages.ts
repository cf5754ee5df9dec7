import { h } from 'preact';
import { ProjectPage } from './project.js';
import { ProjectChangePage } from './project-change.js';
import { ProjectsPage } from './projects.js';
import type {
  ProjectChangePageProps,
  ProjectPageProps,
  ProjectsPageProps,
  RevisionPageProps,
} from './projects-props.js';
import { renderPage } from './render.js';
import { RevisionPage } from './revision.js';

// The projects pages, each a function of plain data to a whole HTML document (see index.ts).
export type * from './projects-props.js';

export const projectsPage = (props: ProjectsPageProps): string => renderPage(h(ProjectsPage, props));
export const projectPage = (props: ProjectPageProps): string => renderPage(h(ProjectPage, props));
export const revisionPage = (props: RevisionPageProps): string => renderPage(h(RevisionPage, props));
export const projectChangePage = (props: ProjectChangePageProps): string => renderPage(h(ProjectChangePage, props));
