// A minimal resource provider (Test.Widgets) built only on the exported front-door API, the way
// Microsoft.Network and Microsoft.ContainerService will be: routes, an LRO kind, a group hook.
import { ArmError, resourceNotFound } from '../../src/arm/errors.js';
import type { OperationKind } from '../../src/arm/lro.js';
import type { Provider, RequestContext } from '../../src/arm/provider.js';
import { s } from '../../src/arm/schema.js';
import { getResourceGroup } from '../../src/providers/resources/resourceGroups.js';

export const WIDGET_CREATE = 'Test.Widgets/widgets/create';

interface Widget {
  id: string;
  name: string;
  type: string;
  location: string;
  properties: { provisioningState: string; size?: number; fail?: boolean };
}

const PATH = '/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Test.Widgets/widgets/{widgetName}';

function widgetId(ctx: RequestContext): string {
  const group = getResourceGroup(ctx.store, ctx.params['subscriptionId']!, ctx.params['resourceGroupName']!);
  return `${group.id}/providers/Test.Widgets/widgets/${ctx.params['widgetName']}`;
}

const createKind: OperationKind = {
  kind: WIDGET_CREATE,
  run(op, { store }) {
    const widget = store.get<Widget>(op.resourceId)!;
    if (widget.properties.fail) throw new ArmError(409, 'WidgetBroken', 'The widget broke.', 'properties.fail');
    store.put(op.resourceId, { ...widget, properties: { ...widget.properties, provisioningState: 'Succeeded' } });
  },
  fail(op, { store }) {
    const widget = store.get<Widget>(op.resourceId);
    if (widget) store.put(op.resourceId, { ...widget, properties: { ...widget.properties, provisioningState: 'Failed' } });
  },
};

/** groupDeletes records the groups whose delete hook ran. */
export function widgetsProvider(groupDeletes: string[] = []): Provider {
  return {
    namespace: 'Test.Widgets',
    apiVersions: ['2023-01-01', '2022-06-01'],
    operationKinds: [createKind],
    onResourceGroupDelete: (groupId) => groupDeletes.push(groupId),
    routes: [
      {
        method: 'PUT',
        path: PATH,
        resourceType: 'widgets',
        bodyRequired: true,
        body: s.object('Widget', {
          location: s.string(),
          properties: s.object('WidgetProperties', { size: s.integer(), fail: s.boolean() }),
        }),
        handle(ctx) {
          const id = widgetId(ctx);
          const body = ctx.body as Pick<Widget, 'location'> & { properties?: Omit<Widget['properties'], 'provisioningState'> };
          const widget: Widget = {
            id,
            name: ctx.params['widgetName']!,
            type: 'Test.Widgets/widgets',
            location: body.location,
            properties: { ...body.properties, provisioningState: 'Creating' },
          };
          return ctx.lro.begin(ctx, {
            kind: WIDGET_CREATE,
            namespace: 'Test.Widgets',
            location: widget.location,
            resourceId: id,
            method: 'PUT',
            prepare: () => ctx.store.put(id, widget),
            response: { status: 201, body: widget },
            headers: 'async-operation',
          });
        },
      },
      {
        method: 'GET',
        path: PATH,
        resourceType: 'widgets',
        handle(ctx) {
          const widget = ctx.store.get<Widget>(widgetId(ctx));
          if (!widget) throw resourceNotFound('Test.Widgets/widgets', ctx.params['widgetName']!, ctx.params['resourceGroupName']!);
          return { status: 200, body: widget };
        },
      },
    ],
  };
}
