import { h } from 'preact';
import { GitHubChoicePage, GitHubPage } from './github.js';
import type { GitHubChoicePageProps, GitHubPageProps } from './github-props.js';
import { renderPage } from './render.js';

// The GitHub pages, each a function of plain data to a whole HTML document (see index.ts).
export type * from './github-props.js';

export const githubPage = (props: GitHubPageProps): string => renderPage(h(GitHubPage, props));
export const githubChoicePage = (props: GitHubChoicePageProps): string => renderPage(h(GitHubChoicePage, props));
