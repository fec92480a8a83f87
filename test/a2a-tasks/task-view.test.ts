import { orderSummary } from '../../src/a2a-tasks/task-view';
import type { OrderView } from '../../src/domain/orders/order-service';

const order = (o: Partial<OrderView>): OrderView =>
  ({
    side: 'BUY',
    outcome: 'YES',
    limitPrice: 0.4,
    state: 'open',
    amount: null,
    shares: null,
    size: 0,
    filledShares: 0,
    avgFillPrice: null,
    ...o,
  }) as OrderView;

describe('an order task status line', () => {
  test('when an order is sized by amount or by shares, then the line says it in that unit', () => {
    expect(orderSummary(order({ amount: 10, size: 10 }))).toContain('BUY $10 of YES at limit 0.4');
    expect(orderSummary(order({ shares: 25, size: 25 }))).toContain('BUY 25 shares of YES at limit 0.4');
    expect(orderSummary(order({ side: 'SELL', shares: 5, size: 5 }))).toContain('SELL 5 shares of YES at limit 0.4');
  });
});
