import { screen } from '@testing-library/react';

import { renderAt } from '@/testing/render';
import { useSite } from '@/stores/site';

import { AboutAndService } from './about-and-service';

const site = { logo: '', siteName: 'Acme Trade', siteDescription: '', emailLogin: true, walletLogin: true, inviteCodeRequired: false };

test('About Us names the site; customer service shows the hours and the chat only when turned on', async () => {
  useSite.setState({ info: { ...site, customerService: { enabled: false, serviceLink: '', hours: '09:00-21:00' } } });
  const { user } = renderAt(<AboutAndService />);
  await user.click(screen.getByRole('button', { name: 'About Us' }));
  expect(screen.getByRole('dialog', { name: 'About Us' })).toHaveTextContent(/^.*Acme Trade is a global digital-currency exchange/);
  await user.click(screen.getByRole('button', { name: 'Close' }));
  await user.click(screen.getByRole('button', { name: 'Customer service (09:00-21:00 UTC)' }));
  expect(screen.getByRole('dialog', { name: 'Customer service' })).toBeInTheDocument();
  expect(screen.getByText('Our team answers every day from 09:00-21:00 (UTC).')).toBeInTheDocument();
  expect(screen.getByText('Customer service chat is not available at the moment.')).toBeInTheDocument();
  expect(screen.queryByRole('link', { name: 'Chat with customer service' })).not.toBeInTheDocument();
  await user.click(screen.getByRole('button', { name: 'Close' }));

  useSite.setState({ info: { ...site, customerService: { enabled: true, serviceLink: 'https://chat.example/acme', hours: '09:00-21:00' } } });
  await user.click(screen.getByRole('button', { name: /^Customer service/ }));
  const chat = screen.getByRole('link', { name: 'Chat with customer service' });
  expect(chat).toHaveAttribute('href', 'https://chat.example/acme');
  expect(chat).toHaveAttribute('rel', 'noopener noreferrer');
});

test("the customer-service item shows the operator's hours, none when left empty, the spec's until the server answers", async () => {
  useSite.setState({ info: { ...site, customerService: { enabled: true, serviceLink: 'https://chat.example', hours: '10:00-18:00' } } });
  const { user } = renderAt(<AboutAndService />);
  await user.click(screen.getByRole('button', { name: 'Customer service (10:00-18:00 UTC)' }));
  expect(screen.getByRole('dialog', { name: 'Customer service' })).toHaveTextContent('Our team answers every day from 10:00-18:00 (UTC).');
  await user.click(screen.getByRole('button', { name: 'Close' }));

  useSite.setState({ info: { ...site, customerService: { enabled: true, serviceLink: 'https://chat.example', hours: '' } } });
  await user.click(await screen.findByRole('button', { name: 'Customer service' }));
  expect(screen.getByRole('dialog', { name: 'Customer service' })).not.toHaveTextContent('Our team answers');
  await user.click(screen.getByRole('button', { name: 'Close' }));

  useSite.setState({ info: null });
  expect(await screen.findByRole('button', { name: 'Customer service (9:00-21:00 UTC)' })).toBeInTheDocument();
});
