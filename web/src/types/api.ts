/**
 * Shapes of the server's answers that more than one feature reads (the server's DTOs), as
 * aliases of the types generated from its OpenAPI document (openapi.gen.ts, written by
 * `npm run api-types` from openapi.json): never declared by hand. A feature aliases its own
 * DTOs the same way, through {@link Schemas}.
 *
 * The document types enumerated values (a contract's status, an account) as strings, and a
 * field the server may leave empty as optional and nullable (`expiryAt?: number | null`; it
 * sends null): code reads them as such.
 */
import type { components } from './openapi.gen';

/** Every schema of the server's OpenAPI document, by name. */
export type Schemas = components['schemas'];

/**
 * The user's accounts (decisions §3: real money and demo money; decisions §11: the balance of
 * the tournament they play now), as the server names them (the document types them as strings).
 */
export type AccountKind = 'real' | 'demo' | 'tournament';

/** A market list line (spec §3 market item); also the websocket's `ticker` frame. */
export type MarketItem = Schemas['MarketItem'];

/**
 * A price alert (the alert list, the fired list and the `priceAlert` frame). `direction`:
 * `above` fires when the price rises to `price`, `below` when it falls to it.
 */
export type PriceAlert = Schemas['AlertRow'];

/** A tick that decided a contract: price, time and log index. */
export type TickRow = Schemas['TickRow'];

/**
 * A contract record (spec §3), with its entry and exit ticks once known, and its owner's UID.
 * `status`: waiting_entry, open, settled or void. `copiedFrom`: the leader's UID when the
 * contract is a copy (copy trading), else null.
 */
export type ContractRow = Schemas['ContractRow'];

/** A deposit (recharge) or withdrawal order, as its owner and the back-office see it, with its owner's UID. */
export type MoneyOrder = Schemas['OrderRow'];

/** The statuses an order goes through (the order lists' filters). */
export type OrderStatus = 'pending' | 'processing' | 'completed' | 'rejected' | 'failed';

/** The user as the server shows them (spec §3). */
export type UserView = Schemas['UserView'];

/** One wallet (real or demo) of the user. */
export type Balance = Schemas['Balance'];

/** The site's public settings (`GET /api/admin/system/basic-info`). */
export type BasicInfo = Schemas['BasicInfo'];

/** The admin as the server shows them (`POST /api/admin/login`, `GET /api/admin/me`). */
export type AdminView = Schemas['AdminView'];

/**
 * A system notice (`GET /api/notices`, `GET /api/admin/notices`): `lang` is the language it is
 * written in and shown to, '' for every language; `withdrawnAt` when an admin withdrew it.
 */
export type NoticeRow = Schemas['NoticeRow'];

/** An event of the user's security history (`GET /api/user/security-events`, the `security` frame). */
export type SecurityRow = Schemas['SecurityRow'];

/**
 * What copy trading told a user (`GET /api/copy/notes`, the `copy` and `copy.refused` frames):
 * a copy started or ended (`kind` `copy`, with `change` and, for the follower of an end, its
 * `reason`), or a follower's copy of a leader's order refused (`copy.refused`, with the leader's
 * `contractId` and the refusal's `code`).
 */
export type CopyNoteRow = Schemas['CopyNoteRow'];
