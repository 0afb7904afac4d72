/** The back-office's game rules: the published trading rules, edited with a preview, and early close's terms. */
export { RulesPage } from './components/rules-page';
