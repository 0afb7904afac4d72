//! Market data: price sources, candles and market hours. Built in the market-data issue; empty until then.
