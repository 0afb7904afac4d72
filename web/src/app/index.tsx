/** The app: i18n for every component, and the router. */
import { I18nextProvider } from 'react-i18next';
import { RouterProvider } from 'react-router';

import { i18n } from '@/lib/i18n';

import { createRouter } from './router';

const router = createRouter();

export function App() {
  return (
    <I18nextProvider i18n={i18n}>
      <RouterProvider router={router} />
    </I18nextProvider>
  );
}
