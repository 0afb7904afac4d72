/**
 * The root of every page: the app-wide effects (websocket, session, device class, site
 * settings, notifications), the route-loading bar and the toasts.
 */
import { useTranslation } from 'react-i18next';
import { Outlet, isRouteErrorResponse, useNavigation, useRouteError } from 'react-router';

import { Toasts } from '@/components/toasts';

import { useAppEffects } from '../use-app-effects';

export function RootLayout() {
  useAppEffects();
  const navigation = useNavigation();
  return (
    <>
      {navigation.state === 'loading' && <div className="route-progress" aria-hidden="true" />}
      <Outlet />
      <Toasts />
    </>
  );
}

/** A screen that failed to load (a chunk lost to a deploy, a bug): say so and offer a reload. */
export function RouteError() {
  const { t } = useTranslation();
  const error = useRouteError();
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  return (
    <div className="page">
      <div className="error-state" role="alert">
        <p>{notFound ? t('app.notFound') : t('errors.pageFailed')}</p>
        <button type="button" className="btn btn-secondary" onClick={() => window.location.reload()}>
          {t('app.reload')}
        </button>
      </div>
    </div>
  );
}
