/** The back-office's game rules: the published trading rules, edited with a preview. */
export { RulesPage } from './components/rules-page';
