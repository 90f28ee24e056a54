import { describe, expect, it } from 'vitest';
import type { RevenueReport } from '../../src/report/figures.js';
import { reportHtml } from '../../src/report/html.js';

const report: RevenueReport = {
  merchantId: 'mer_1',
  merchantName: 'Shop <script>alert(1)</script>',
  currency: 'USD',
  zone: 'Europe/Paris',
  generatedAt: '2026-11-23 10:00:00',
  months: [
    {
      month: '2026-09',
      newSubscriptions: 3,
      churned: 0,
      active: 3,
      mrr: 2997,
      charged: 2997,
      refunded: 0,
      failedAttempts: 0,
      recovered: 0,
    },
    {
      month: '2026-10',
      newSubscriptions: 1,
      churned: 1,
      active: 3,
      mrr: 3000,
      charged: 4000,
      refunded: 999,
      failedAttempts: 2,
      recovered: 1,
    },
  ],
};

describe('revenue report page', () => {
  const html = reportHtml(report);

  it('shows every month with its figures, money with its decimals', () => {
    expect(html).toContain(
      '<th scope="row">2026-10</th><td>1</td><td>1</td><td>3</td><td>30.00</td><td>40.00</td><td>9.99</td><td>2</td><td>1</td>',
    );
  });

  it('escapes text that came from outside', () => {
    expect(html).not.toContain('<script>');
    expect(html).toContain('Shop &#60;script&#62;');
  });

  it('is self-contained: no script and no resource from anywhere', () => {
    expect(html).not.toMatch(/<script|<link|<img|@import|url\(/i);
    const urls = html.match(/https?:\/\/[^"\s<]+/g) ?? [];
    expect(urls.every((u) => u === 'http://www.w3.org/2000/svg')).toBe(true);
  });

  it('draws the MRR and the charged-vs-refunded charts as inline SVG', () => {
    expect(html.match(/<svg /g)).toHaveLength(2);
    expect(html).toContain('aria-label="MRR (USD)"');
    expect(html).toContain('aria-label="Subscription charges and refunds (USD)"');
  });

  it('says that charged and refunded count subscription charges only', () => {
    expect(html).toContain('<th scope="col">charged (subscriptions)</th><th scope="col">refunded (subscriptions)</th>');
    expect(html).toContain('one-off payments (PAY, checkout) are not in this report');
  });
});
